import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** A build that talks as much as the real tools do, then writes its outputs (the entries the fake service); it fails when FAIL_BUILD names it. */
const FAKE_BUILD = `
const { mkdirSync, writeFileSync } = require('node:fs');
const [name, ...outputs] = process.argv.slice(2);
for (let i = 0; i < 40; i++) console.log(name + ' tool output ' + i);
if (process.env.FAIL_BUILD === name) { console.error(name + ': error TS2322 in src/main.ts'); process.exit(3); }
for (const output of outputs) {
  mkdirSync(require('node:path').dirname(output), { recursive: true });
  writeFileSync(output, output.endsWith('.js') ? SERVICE : '');
}
`;

/** What the fake dist/main.js does: says how it was started, then exits 17 at once, or on SIGTERM when WAIT is set. */
const SERVICE = `
if (process.env.WAIT) {
  process.once('SIGTERM', () => { console.log('service got SIGTERM'); process.exit(0); });
  setInterval(() => undefined, 1000);
}
console.log('service up with ' + JSON.stringify(process.execArgv));
if (!process.env.WAIT) process.exit(17);
`;

/**
 * `scripts/start.mjs`, what `npm start` and `npm run worker` run, in a copy of the repository's
 * layout whose npm scripts build fakes: which outputs it builds, when, and that the service
 * it then becomes gets its flags, its exit status and its signals.
 */
describe('npm start: build what changed, then become the service', () => {
  let root: string;

  /** The environment of `npm start` without npm's own variables, which name the real package.json. */
  const env = (extra: Record<string, string> = {}) => ({
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_'))),
    ...extra,
  });

  const run = (...args: string[]) =>
    promisify(execFile)(process.execPath, [join(root, 'scripts', 'start.mjs'), ...args], { cwd: root, env: env() }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  const plan = async (...args: string[]) =>
    (await run(...args, '--plan')).stdout.split('\n').filter((line) => !line.startsWith('checked '));

  const edit = async (file: string) => writeFile(join(root, file), `${await readFile(join(root, file), 'utf8')}// edited\n`);

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bridle-start-'));
    await mkdir(join(root, 'scripts'));
    await copyFile(join(__dirname, '..', '..', 'scripts', 'start.mjs'), join(root, 'scripts', 'start.mjs'));
    await writeFile(join(root, 'build.cjs'), `const SERVICE = ${JSON.stringify(SERVICE)};\n${FAKE_BUILD}`);
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({
        config: { startNodeFlags: '--v8-pool-size=1 --no-warnings' },
        scripts: {
          'build:server': 'node build.cjs server dist/main.js dist/worker.js dist/admin.js',
          'build:console': 'node build.cjs console web/dist/index.html',
        },
      }),
    );
    for (const file of ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'scripts/bundle-server.mjs']) {
      await writeFile(join(root, file), '{}\n');
    }
    await mkdir(join(root, 'src', 'modules'), { recursive: true });
    await writeFile(join(root, 'src', 'main.ts'), 'export {};\n');
    await writeFile(join(root, 'src', 'modules', 'app.module.ts'), 'export {};\n');
    await mkdir(join(root, 'web', 'src', 'generated'), { recursive: true });
    await writeFile(join(root, 'web', 'index.html'), '<!doctype html>\n');
    await writeFile(join(root, 'web', 'src', 'main.tsx'), 'export {};\n');
    await writeFile(join(root, 'web', 'src', 'generated', 'types.gen.ts'), 'export type A = string;\n');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('builds everything on a first start, one line a build, then runs the service with the start flags and its exit status', async () => {
    expect(await plan()).toEqual([
      'server: build (first start, 10 to 40 s)',
      'console: build (first start, a few seconds)',
      'would build: server, console',
      '',
    ]);

    const first = await run('main');

    expect(first.code).toBe(17);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(
      /^bridle: building the server \(first start, 10 to 40 s\)… done in [\d.]+ s\nbridle: building the web console \(first start, a few seconds\)… done in [\d.]+ s\nservice up with \["--v8-pool-size=1","--no-warnings"\]\n$/,
    );
  });

  it('builds nothing when nothing changed since it built', async () => {
    await run('main');

    expect(await plan()).toEqual(['server: current', 'console: current', 'would build: nothing', '']);
    expect((await run('main')).stdout).toBe('service up with ["--v8-pool-size=1","--no-warnings"]\n');
  });

  it('rebuilds the server only when a source file changed, and the worker starts without the flags', async () => {
    await run('main');
    await edit('src/modules/app.module.ts');

    expect(await plan()).toEqual(['server: build (src/modules/app.module.ts changed)', 'console: current', 'would build: server', '']);
    expect(await plan('worker')).toEqual(['server: build (src/modules/app.module.ts changed)', 'would build: server', '']);
    expect(await run('worker')).toMatchObject({
      code: 17,
      stdout: expect.stringMatching(
        /^bridle: building the server \(src\/modules\/app\.module\.ts changed\)… done in [\d.]+ s\nservice up with \[\]\n$/,
      ),
    });
    expect(await plan()).toEqual(['server: current', 'console: current', 'would build: nothing', '']);
  });

  it('rebuilds the console only when a file of web/ changed, and neither for the generated API types', async () => {
    await run('main');
    await edit('web/src/generated/types.gen.ts');

    expect(await plan()).toEqual(['server: current', 'console: current', 'would build: nothing', '']);

    await edit('web/src/main.tsx');

    expect(await plan()).toEqual(['server: current', 'console: build (web/src/main.tsx changed)', 'would build: console', '']);
    expect(await plan('worker')).toEqual(['server: current', 'would build: nothing', '']);
  });

  it('rebuilds both when the lockfile changed, and a build emptied of its stamp once', async () => {
    await run('main');
    await edit('package-lock.json');

    expect(await plan()).toContain('would build: server, console');

    await run('main');
    await rm(join(root, 'dist', '.build-stamp'));

    expect(await plan()).toEqual(['server: build (not built by npm start before)', 'console: current', 'would build: server', '']);
  });

  it('shows the output of a failed build, exits with its status and starts nothing', async () => {
    const failed = await promisify(execFile)(process.execPath, [join(root, 'scripts', 'start.mjs')], {
      cwd: root,
      env: env({ FAIL_BUILD: 'server' }),
    }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );

    expect(failed.code).toBe(3);
    expect(failed.stdout).toContain('server tool output 39');
    expect(failed.stdout).toContain('server: error TS2322 in src/main.ts');
    expect(failed.stdout).toContain('`npm run build:server` failed (exit status 3)');
    expect(failed.stdout).not.toContain('service up');
    expect(await plan()).toContain('would build: server, console');
  });

  it.each([
    ['replacing itself with it', []],
    ['forwarding it where Node lacks process.execve (before 22.15)', ['--import', 'data:text/javascript,delete process.execve']],
  ])('hands SIGTERM sent to it to the service, %s', async (_, nodeArgs: string[]) => {
    await run('main');
    const child = spawn(process.execPath, [...nodeArgs, join(root, 'scripts', 'start.mjs')], { cwd: root, env: env({ WAIT: '1' }) });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (output === '') child.kill('SIGTERM');
      output += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? signal)));

    expect({ code, output }).toEqual({ code: 0, output: 'service up with ["--v8-pool-size=1","--no-warnings"]\nservice got SIGTERM\n' });
  });
});
