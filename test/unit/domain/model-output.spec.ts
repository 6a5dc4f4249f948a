import { createHash } from 'node:crypto';
import { providerToolCalls, recordedArguments, recordedToolName } from '../../../src/domain/agent/model-output';

describe('what Bridle keeps of model output', () => {
  it.each([
    ['add_task', 'add_task'],
    ['add\u0000task', 'add\uFFFDtask'],
    ['x'.repeat(65), `${'x'.repeat(43)}[… 22 characters cut]`],
  ])('records the tool name %j as %j', (name, recorded) => {
    expect(recordedToolName(name)).toBe(recorded);
  });

  it('records JSON arguments parsed, so that redaction can see their keys', async () => {
    await expect(recordedArguments('{"title":"x","password":"p"}', 1000)).resolves.toEqual({ title: 'x', password: 'p' });
  });

  it('records other text as text, made storable', async () => {
    await expect(recordedArguments('title=x\u0000', 1000)).resolves.toBe('title=x\uFFFD');
  });

  it('records only the size and hash of arguments past the limit', async () => {
    await expect(recordedArguments('y'.repeat(2000), 1000)).resolves.toEqual({
      omitted: 'too large',
      bytes: 2000,
      sha256: createHash('sha256').update('y'.repeat(2000)).digest('hex'),
    });
  });
});

describe(providerToolCalls.name, () => {
  const call = (id: unknown) => ({ id, name: 'add_task', arguments: '{}' });

  it('keeps a provider id of printable ASCII, 1 to 128 characters', () => {
    expect(providerToolCalls([call('call_1'), call('toolu_01:x-y.z')], 3).map((c) => c.id)).toEqual(['call_1', 'toolu_01:x-y.z']);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['a number', 0],
    ['an object', { id: 'x' }],
    ['empty', ''],
    ['with a space', 'call 1'],
    ['with a control character', 'call\u001b1'],
    ['129 characters', 'x'.repeat(129)],
  ])('gives a call whose id is %s an id of its own, by its place', (_, id) => {
    expect(providerToolCalls([call('call_1'), call(id)], 3).map((c) => c.id)).toEqual(['call_1', 'bridle-call-3-1']);
  });

  it('gives a repeated id to the first call only, and never one a provider already used', () => {
    const ids = providerToolCalls([call('a'), call('a'), call('bridle-call-5-1'), call(null)], 5).map((c) => c.id);
    expect(ids).toEqual(['a', 'bridle-call-5-1-', 'bridle-call-5-1', 'bridle-call-5-3']);
    expect(new Set(ids).size).toBe(4);
  });

  it('reads a name that is no string, and arguments that are no string, as their JSON', () => {
    expect(providerToolCalls([{ id: 'c', name: 7, arguments: { title: 'x' } }], 0)).toEqual([
      { id: 'c', name: '7', arguments: '{"title":"x"}' },
    ]);
    expect(providerToolCalls([{ id: 'c', name: undefined, arguments: undefined }], 0)).toEqual([{ id: 'c', name: '', arguments: '' }]);
  });
});
