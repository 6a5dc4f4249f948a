import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * The repository's ESLint configuration refuses a regular expression that takes
 * more than linear time in what it reads, in the code that reads hostile text. Each fixture
 * is linted as a file of src/ would be, with the repository's own eslint.config.mjs (type
 * information turned off: a fixture belongs to no tsconfig project, and the regexp rules need
 * none).
 */
const ROOT = join(__dirname, '..', '..', '..');
const SUPER_LINEAR = ['regexp/no-super-linear-backtracking', 'regexp/no-super-linear-move'];

async function superLinearReports(code: string, file = 'src/domain/fixture.ts'): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  const fatal = result.messages.filter((message) => message.fatal);
  if (fatal.length > 0) throw new Error(`the fixture did not parse: ${fatal.map((message) => message.message).join('; ')}`);
  return result.messages.filter((message) => SUPER_LINEAR.includes(message.ruleId ?? '')).map((message) => message.ruleId!);
}

describe('the regexp lint rules (eslint.config.mjs)', () => {
  it.each([
    ['nested quantifiers', String.raw`export const pattern = /^(a+)+$/;`, 'regexp/no-super-linear-backtracking'],
    [
      'a key found by the word before it',
      String.raw`export const found = (text: string) => /\s*\w+\s*=/.test(text);`,
      'regexp/no-super-linear-move',
    ],
    [
      'the key pattern redaction had',
      String.raw`export const masked = (text: string) => text.replace(/["']?[\w-]*password["']?\s*[:=]\s*\S+/gi, '');`,
      'regexp/no-super-linear-move',
    ],
    ['a trailing run', String.raw`export const trimmed = (text: string) => text.replace(/[\s.,]+$/, '');`, 'regexp/no-super-linear-move'],
  ])('reports %s in src/', async (_, code, rule) => {
    expect(await superLinearReports(code)).toContain(rule);
  });

  it.each([
    ['the same nested quantifier, flattened', String.raw`export const pattern = /^a+$/;`],
    [
      'the key found from its ending',
      String.raw`export const masked = (text: string) => text.replace(/password["']?\s*[:=]\s*\S+/gi, '');`,
    ],
    [
      'the trailing run tried only where it starts',
      String.raw`export const trimmed = (text: string) => text.replace(/(?<![\s.,])[\s.,]+$/, '');`,
    ],
  ])('passes %s', async (_, code) => {
    expect(await superLinearReports(code)).toEqual([]);
  });

  it('holds in the web console and the scripts too, but not in tests, which read only their own text', async () => {
    const code = String.raw`export const pattern = /^(a+)+$/;`;
    expect(await superLinearReports(code, 'web/src/lib/fixture.ts')).toEqual(['regexp/no-super-linear-backtracking']);
    expect(await superLinearReports(code, 'scripts/fixture.mjs')).toEqual(['regexp/no-super-linear-backtracking']);
    expect(await superLinearReports(code, 'test/unit/fixture.ts')).toEqual([]);
  });
});
