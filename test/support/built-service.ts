import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root: the working directory of a built service under test. */
export const ROOT = join(__dirname, '..', '..');

/**
 * Compiles the service as `npm run build` does (tsconfig.build.json) into `dir`, a folder of
 * the calling suite's own under the repository root, so that a concurrent build or another
 * process test cannot pull it away. Remove it with removeBuild.
 */
export function buildService(dir: string): void {
  removeBuild(dir);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dir], { cwd: ROOT, stdio: 'pipe' });
}

export function removeBuild(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
