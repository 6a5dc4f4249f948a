import { describeInputProblem, findInputProblem, parseCanonicalInteger, textProblem } from '../../../src/domain/shared/untrusted-input';
import { isTimestamp } from '../../../src/infrastructure/persistence/cursor';

describe('untrusted input', () => {
  it.each([
    ['a\u0000b', 'contains a NUL character'],
    ['a\ud800b', 'contains a lone surrogate (not valid Unicode)'],
    ['\udc00', 'contains a lone surrogate (not valid Unicode)'],
  ])('refuses %j', (text, problem) => {
    expect(textProblem(text)).toBe(problem);
  });

  it.each(['plain', 'émoji 🎉 pairs', '', '\t\n'])('takes %j', (text) => {
    expect(textProblem(text)).toBeNull();
  });

  it('names the field of a problem deep inside a body', () => {
    const body = { leads: [{ name: 'ok' }, { name: 'bad\u0000' }] };
    expect(describeInputProblem(findInputProblem(body, '')!)).toBe('leads[1].name contains a NUL character');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s at any depth', (key) => {
    const body = JSON.parse(`{"a":{"b":[{"${key}":{}}]}}`) as unknown;
    expect(findInputProblem(body, '')).toEqual({ path: `a.b[0].${key}`, problem: 'is a reserved key, not allowed' });
  });

  it('refuses a bad key as well as a bad value', () => {
    expect(findInputProblem({ 'x\u0000': 1 }, '')?.problem).toBe('key contains a NUL character');
  });

  it('stops at the depth limit without recursing, naming the top-level field', () => {
    const deep = JSON.parse(`{"description":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as unknown;
    expect(findInputProblem(deep, '')).toEqual({ path: 'description', problem: 'is nested deeper than 32 levels' });
    expect(findInputProblem({ a: [[[1]]] }, '', 4)).toBeNull();
    expect(findInputProblem({ a: [[[[1]]]] }, '', 4)?.problem).toBe('is nested deeper than 4 levels');
  });

  it.each([
    ['0', 0],
    ['7', 7],
    ['9007199254740991', 9007199254740991],
  ])('reads the canonical integer %s', (text, value) => {
    expect(parseCanonicalInteger(text)).toBe(value);
  });

  it.each(['0x2', '0b11', '0o6', '4e0', ' 5', '5 ', '+5', '-5', '05', '1.0', '', '99999999999999999'])(
    'refuses %j as an integer',
    (text) => {
      expect(parseCanonicalInteger(text)).toBeNull();
    },
  );
});

describe(isTimestamp.name, () => {
  it.each(['2026-11-22 15:20:00.123456+00', '2026-11-22 15:20:00+05:30', '2024-02-29 23:59:59.9-08'])('takes %s', (value) => {
    expect(isTimestamp(value)).toBe(true);
  });

  it.each(['1', '2026-02-30 10:00:00+00', '0000-01-01 00:00:00+00', 'March 7, 2026', '2026-11-22T15:20:00Z', '2026-11-22 24:00:00+00', 42])(
    'refuses %j',
    (value) => {
      expect(isTimestamp(value)).toBe(false);
    },
  );
});
