import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * `scripts/check-node.cjs`, the first step of `npm start` and `npm test`, run by the Node that
 * runs this suite against a package.json whose engines it does or does not meet.
 */
describe('the Node version check that npm start and npm test run first', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bridle-check-node-'));
    await mkdir(join(root, 'scripts'));
    await copyFile(join(__dirname, '..', '..', 'scripts', 'check-node.cjs'), join(root, 'scripts', 'check-node.cjs'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const run = async (engines: string, ...args: string[]) => {
    await writeFile(join(root, 'package.json'), JSON.stringify({ engines: { node: engines } }));
    return promisify(execFile)(process.execPath, [join(root, 'scripts', 'check-node.cjs'), ...args]).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  };

  it('stops an older Node at once, naming both versions and the command that brings the right one', async () => {
    const major = Number(process.versions.node.split('.')[0]);
    const result = await run(`>=${major + 1}.0`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`this is Node ${process.version}`);
    expect(result.stderr).toContain(`needs Node >=${major + 1}.0`);
    expect(result.stderr).toContain('npm install --no-audit --no-fund');
  });

  it('stops a Node of the same major whose minor is too old', async () => {
    const [major, minor] = process.versions.node.split('.').map(Number);
    expect((await run(`>=${major}.${minor + 1}`)).code).toBe(1);
  });

  it('lets a recent enough Node through in silence, and after install says which Node the scripts run on', async () => {
    const [major, minor] = process.versions.node.split('.').map(Number);
    expect(await run(`>=${major}.${minor}`)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await run(`>=${major - 1}.0`, '--installed')).stdout).toContain(`npm scripts run on Node ${process.version}`);
  });
});
