import { writeFileSync } from 'node:fs';

/** Writes a benchmark's results as JSON laid out by Prettier, as `npm run lint` checks every JSON file of the repository. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(JSON.stringify(value), { ...options, filepath: file }));
}
