import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');

/** The shell snippets of one section of a Markdown file, in order, as a newcomer would paste them. */
function snippets(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const section = new RegExp(`^${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(text)?.[1] ?? '';
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]).join('\n');
}

/** Runs `script` in bash as written, with BRIDLE pointing at `origin`. */
function bash(script: string, origin: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // --norc: bash reads .bashrc when its input is a socket, as Node's pipes are.
    const child = spawn('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], {
      env: { PATH: process.env.PATH ?? '', BRIDLE: origin },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * The README's tour and the docs' curl session, run as written by bash against the real app:
 * a newcomer's first minutes, and the smoke test of `npm run test:fast`.
 */
describe('the shell snippets of the README and docs/api.md', () => {
  const sut = useTestApp();

  it('runs top to bottom and shows what the README says it shows', async () => {
    const script = snippets('README.md', '## A 60-second tour');
    expect(script).toContain('curl');
    const run = await bash(script, sut.http);
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

  it("runs docs/api.md's outreach session as written", async () => {
    const script = snippets('docs/api.md', '## An outreach session with curl');
    expect(script).toContain('cycles');
    const run = await bash(script, sut.http);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout.split('\n')).toEqual([
      '2',
      'active',
      'linkedin_scrape_profile done and verified: profile fields present: name, headline, title, company, location.',
      'linkedin_scrape_profile done and verified: profile fields present: name, headline, title, company, location.',
      expect.stringMatching(/^linkedin_send_message done and verified: accepted as sandbox-\w+ and found by its key\.$/),
      '3',
      '19',
      '',
    ]);
  });
});
