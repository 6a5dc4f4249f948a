import { createHash } from 'node:crypto';
import { boundedAnswer, recordedArguments, recordedToolName } from '../../../src/domain/agent/model-output';

describe('what Bridle keeps of model output', () => {
  it('keeps an answer within the limit as it is', () => {
    expect(boundedAnswer('All done.', 100)).toEqual({ text: 'All done.', cut: false, bytes: 9 });
  });

  it('cuts a long answer at a character boundary and says so', () => {
    const answer = boundedAnswer('é'.repeat(10_000), 101);
    expect(answer.cut).toBe(true);
    expect(answer.bytes).toBe(20_000);
    expect(answer.text).toBe(`${'é'.repeat(50)}\n\n[The answer was cut: it ran past 101 bytes.]`);
  });

  it('makes an answer storable', () => {
    expect(boundedAnswer('a\u0000b\ud800', 100).text).toBe('a\uFFFDb\uFFFD');
  });

  it.each([
    ['add_task', 'add_task'],
    ['add\u0000task', 'add\uFFFDtask'],
    ['x'.repeat(65), `${'x'.repeat(63)}…`],
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
