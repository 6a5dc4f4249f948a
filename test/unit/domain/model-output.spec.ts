import { createHash } from 'node:crypto';
import { recordedArguments, recordedToolName } from '../../../src/domain/agent/model-output';

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
