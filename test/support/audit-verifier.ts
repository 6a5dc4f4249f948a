import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const VERIFIER = join(__dirname, '..', '..', 'verifier', 'bridle-audit-verify.mjs');

export interface VerifierRun {
  readonly status: number | null;
  /** The --json report. */
  readonly report: {
    ok: boolean;
    firstBadPosition?: number | null;
    rows?: number;
    committed?: number;
    erased?: number;
    problems: string[];
    checked: string[];
  };
  readonly stderr: string;
}

/** Runs the offline verifier as an auditor would: its own process, no database, no service, a bare environment. */
export async function runVerifier(args: readonly string[]): Promise<VerifierRun> {
  const child = spawn(process.execPath, [VERIFIER, ...args, '--json'], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [status] = (await once(child, 'close')) as [number | null];
  if (stdout.trim() === '') throw new Error(`the verifier printed no report (status ${status}): ${stderr}`);
  return { status, report: JSON.parse(stdout) as VerifierRun['report'], stderr };
}
