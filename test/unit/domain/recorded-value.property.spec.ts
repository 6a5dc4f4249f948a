import fc from 'fast-check';
import { boundedValue, RECORDED_VALUE_MAX_LENGTH } from '../../../src/domain/shared/recorded-value';

/** Anything a client can put where Bridle records it: long and odd text, numbers, JSON of any shape. */
const clientValue = fc.oneof(
  fc.string({ maxLength: 30_000 }),
  fc.string({ unit: 'grapheme', maxLength: 2_000 }),
  fc.string({ unit: fc.constantFrom('\ud83d\ude00', 'a', '\u0000', '\n', '\u202e'), maxLength: 500 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 4 }),
  fc.object({ maxDepth: 3 }),
);

const isLoneSurrogateAt = (text: string, i: number) => {
  const code = text.charCodeAt(i);
  if (code >= 0xd800 && code <= 0xdbff) return !(text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff);
  if (code >= 0xdc00 && code <= 0xdfff) return !(text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff);
  return false;
};

describe(boundedValue.name, () => {
  it('gives at most the bound, whatever the value, and a text within it unchanged', () => {
    fc.assert(
      fc.property(clientValue, fc.integer({ min: 32, max: 300 }), (value, max) => {
        const bounded = boundedValue(value, max);
        expect(bounded.length).toBeLessThanOrEqual(max);
        if (typeof value === 'string' && value.length <= max) expect(bounded).toBe(value);
      }),
    );
  });

  it('marks a cut with how much was cut, keeps the start, and splits no surrogate pair it kept whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 200, maxLength: 3_000 }), (text) => {
        fc.pre(text.length > RECORDED_VALUE_MAX_LENGTH);
        const bounded = boundedValue(text);
        const match = /^([\s\S]*)\[… (\d+) characters cut\]$/.exec(bounded);
        expect(match).not.toBeNull();
        const [, kept, cut] = match!;
        expect(text.startsWith(kept)).toBe(true);
        expect(kept.length + Number(cut)).toBe(text.length);
        for (let i = 0; i < kept.length; i++) if (!isLoneSurrogateAt(text, i)) expect(isLoneSurrogateAt(kept, i)).toBe(false);
      }),
    );
  });

  it('bounds a 20 000-character JSON-RPC id to 128 characters', () => {
    const bounded = boundedValue('x'.repeat(20_000));
    expect(bounded).toHaveLength(128);
    expect(bounded).toBe(`${'x'.repeat(104)}[… 19896 characters cut]`);
  });
});
