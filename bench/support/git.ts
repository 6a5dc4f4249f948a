import { execFileSync } from 'node:child_process';

/** `git <args>` in `cwd`, trimmed; '' when git fails (no repository, no git): results then say less. */
export function git(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
