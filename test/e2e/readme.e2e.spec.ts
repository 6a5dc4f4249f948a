import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const README = join(__dirname, '..', '..', 'README.md');

/** The shell snippets of the README's tour, in order, as a newcomer would paste them. */
function tourScript(): string {
  const readme = readFileSync(README, 'utf8');
  const tour = /^## A 60-second tour\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  return [...tour.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]).join('\n');
}

/**
 * The README's tour, run as written by bash against the real app: the newcomer's first
 * minutes, and the smoke test of `npm run test:fast`.
 */
describe("the README's 60-second tour", () => {
  let db: TestDatabase;
  let sut: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db);
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  it('runs top to bottom and shows what the README says it shows', async () => {
    const script = tourScript();
    expect(script).toContain('curl');
    // Async: the app answering the script runs in this process.
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH ?? '', BRIDLE: sut.http } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout.split('\n')).toEqual([
      'ada@example.com',
      'Here are your pending tasks:',
      '1. ☐ Buy milk',
      "Do you really want to delete 'Buy milk'? Reply 'yes delete' to confirm.",
      "I've removed 'Buy milk' from your tasks.",
      '1',
      'active',
      'linkedin_scrape_profile done and verified: profile fields present: name, headline, title, company, location.',
      '0',
      '',
    ]);
  });
});
