import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type Options, transformFile } from '@swc/core';

/** The repository root: the working directory of a built service under test. */
export const ROOT = join(__dirname, '..', '..');

/** The options of the tests' own transform (jest.config.js), emitting CommonJS as `nest build` does. */
const SWC_OPTIONS: Options = {
  ...(JSON.parse(readFileSync(join(__dirname, 'swc.json'), 'utf8')) as Options),
  swcrc: false,
  configFile: false,
};

/**
 * Builds the service into `dir` as `npm run build` builds it into dist/: compiles src/ (into
 * `dir`-compiled), then bundles that with scripts/bundle-server.mjs, so these suites run what
 * ships. `dir` is a folder of the calling suite's own under the repository root, so that a
 * concurrent build or another process test cannot pull it away. Remove it with removeBuild.
 * Compiled with swc, as every other suite runs the sources, in about a second where tsc takes
 * half a minute on a busy machine; `npm run typecheck` checks the types.
 */
export async function buildService(dir: string): Promise<void> {
  removeBuild(dir);
  const compiled = `${dir}-compiled`;
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  await Promise.all(
    sources.map(async (file) => {
      const { code } = await transformFile(join(ROOT, 'src', file), SWC_OPTIONS);
      const target = join(compiled, file.replace(/\.ts$/, '.js'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, code);
    }),
  );
  await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'bundle-server.mjs'), compiled, dir], { cwd: ROOT });
}

/**
 * Builds the service into `dir` before the enclosing block's tests (up to two minutes on a busy
 * machine) and removes it after them. Its afterAll runs before the block's later ones: a block
 * whose own afterAll still needs the build calls buildService and removeBuild itself.
 */
export function useBuiltService(dir: string): void {
  beforeAll(() => buildService(dir), 120_000);
  afterAll(() => removeBuild(dir));
}

export function removeBuild(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}-compiled`, { recursive: true, force: true });
}

/** The node flags `npm start` runs the service with (package.json `config.startNodeFlags`): the process suites run it so. */
export const START_NODE_FLAGS = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { config: { startNodeFlags: string } }
).config.startNodeFlags
  .split(' ')
  .filter((flag) => flag !== '');

/** A built service started as its own OS process, listening on a free port of 127.0.0.1. */
export interface RunningService {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  /** Its stdout and stderr so far. */
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** Spawns `node <script>` as `npm start` does, from the repository root with only PATH and `env` (plus HOST and a free PORT). */
export function spawnService(script: string, env: Record<string, string>): Omit<RunningService, 'baseUrl'> {
  const child = spawn(process.execPath, [...START_NODE_FLAGS, script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Spawns the service and resolves once it listens; kills it and fails with its output if it does not. */
export async function startService(script: string, env: Record<string, string>, timeoutMs = 60_000): Promise<RunningService> {
  const service = spawnService(script, env);
  let exitCode: number | null | undefined;
  void service.exited.then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && exitCode === undefined) {
    const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(service.output())?.[1];
    if (port) return { ...service, baseUrl: `http://127.0.0.1:${port}` };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  service.child.kill('SIGKILL');
  throw new Error(`service did not start (exit ${String(exitCode)}):\n${service.output()}`);
}

/** One JSON request to a running service. */
export async function callService<T = unknown>(
  service: Pick<RunningService, 'baseUrl'>,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Registers an account on a running service and signs it in: its session token and user id. */
export async function signUpOnService(
  service: Pick<RunningService, 'baseUrl'>,
  credentials: { email: string; password: string },
): Promise<{ accessToken: string; userId: string }> {
  const registered = await callService(service, 'POST', '/auth/register', credentials);
  if (registered.status !== 201) throw new Error(`sign-up answered ${registered.status}`);
  return (await callService<{ accessToken: string; userId: string }>(service, 'POST', '/auth/login', credentials)).body;
}
