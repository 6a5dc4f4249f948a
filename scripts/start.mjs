#!/usr/bin/env node
// `node scripts/start.mjs [main|worker] [--plan]`: `npm start` (main) and `npm run worker`.
// Builds what is out of date, then becomes `node dist/<entry>.js` (docs/operations.md#cold-start).
// `npm run build` still builds everything; this builds an output only when it is missing or its
// inputs changed since this script built it:
//
//   server   dist/      npm run build:server     src/, package.json, package-lock.json, the
//                                                tsconfigs, nest-cli.json, scripts/bundle-server.mjs
//   console  web/dist/  npm run build:console    web/ but web/dist/ and web/src/generated/,
//                                                package.json, package-lock.json
//
// The console's API types (web/src/generated/, `npm run api:types`, from the server's sources)
// are no input: the console imports them with `import type`, which the bundler erases, so they
// matter to `npm run typecheck` and not to the bundle. What an output was built from is a stamp in
// its folder (dist/.build-stamp, web/dist/.build-stamp; express.static serves no dotfiles): the
// SHA-256 of each input file, taken before the build and written once it succeeded. Any other
// build of the folder (`npm run build`) empties it, stamp included, so the next start builds again.
//
// Each build prints one line; its tools' output is shown only when it fails. `--plan` prints
// what would be built and why, and builds and starts nothing.
//
// The service then replaces this process (process.execve, Node >= 22.15): signals sent to this
// process reach the service itself, whose graceful shutdown depends on SIGTERM and SIGINT.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP_VERSION = 1;

const SERVER = {
  name: 'server',
  what: 'the server',
  script: 'build:server',
  stamp: 'dist/.build-stamp',
  outputs: ['dist/main.js', 'dist/worker.js', 'dist/admin.js'],
  inputs: [
    'src',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'nest-cli.json',
    'scripts/bundle-server.mjs',
  ],
  skip: [],
  firstTime: 'first start, 10 to 40 s',
};

const CONSOLE = {
  name: 'console',
  what: 'the web console',
  script: 'build:console',
  stamp: 'web/dist/.build-stamp',
  outputs: ['web/dist/index.html'],
  inputs: ['web', 'package.json', 'package-lock.json'],
  skip: ['web/dist', 'web/src/generated', 'web/node_modules'],
  firstTime: 'first start, a few seconds',
};

const ENTRIES = { main: { parts: [SERVER, CONSOLE], nodeFlags: true }, worker: { parts: [SERVER], nodeFlags: false } };

const say = (text) => writeSync(1, text);

/** Every file under the given paths (files or folders, relative to ROOT, `/`-separated), but the skipped folders. */
function listFiles(paths, skip) {
  const files = [];
  const walk = (path) => {
    if (skip.includes(path)) return;
    let entries;
    try {
      entries = readdirSync(join(ROOT, path), { withFileTypes: true });
    } catch (error) {
      if (error.code === 'ENOTDIR') files.push(path);
      else if (error.code !== 'ENOENT') throw error;
      return;
    }
    for (const entry of entries) walk(`${path}/${entry.name}`);
  };
  for (const path of paths) walk(path);
  return files.sort();
}

/** `{ path: sha256 }` of a part's inputs as they are now. */
function hashInputs(part) {
  return Object.fromEntries(
    listFiles(part.inputs, part.skip).map((file) => [
      file,
      createHash('sha256')
        .update(readFileSync(join(ROOT, file)))
        .digest('hex'),
    ]),
  );
}

function readStamp(part) {
  try {
    const stamp = JSON.parse(readFileSync(join(ROOT, part.stamp), 'utf8'));
    return stamp.version === STAMP_VERSION ? stamp : null;
  } catch {
    return null;
  }
}

/** Why the part must be built, or null when its output is current. */
function staleness(part, inputs) {
  if (part.outputs.some((output) => !existsSync(join(ROOT, output)))) return part.firstTime;
  const stamp = readStamp(part);
  if (!stamp) return 'not built by npm start before';
  const changed = [...new Set([...Object.keys(inputs), ...Object.keys(stamp.inputs)])].filter(
    (file) => inputs[file] !== stamp.inputs[file],
  );
  if (changed.length === 0) return null;
  const named = changed.slice(0, 3).join(', ');
  return changed.length > 3 ? `${named} and ${changed.length - 3} more changed` : `${named} changed`;
}

/** `npm run -s <script>`, its output kept and shown only if it fails; then this process exits with its status. */
async function build(part, reason) {
  const started = performance.now();
  say(`bridle: building ${part.what} (${reason})… `);
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const child = spawn(npm[0], [...npm.slice(1), 'run', '-s', part.script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  const status = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  if (status !== 0) {
    say(`failed:\n${Buffer.concat(output).toString()}\nbridle: \`npm run ${part.script}\` failed (exit status ${status}).\n`);
    process.exit(status);
  }
  say(`done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

function nodeFlags(entry) {
  if (!ENTRIES[entry].nodeFlags) return [];
  const flags =
    process.env.npm_package_config_startNodeFlags ??
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).config?.startNodeFlags ??
    '';
  return flags.split(' ').filter((flag) => flag !== '');
}

/** Runs the service in place of this process; without process.execve, as a child that gets the signals this process gets. */
function become(entry) {
  const args = [...nodeFlags(entry), join('dist', `${entry}.js`)];
  if (typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...args], process.env);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  // A Ctrl-C at a terminal reaches the whole foreground process group, the service included:
  // forwarding SIGINT as well would give it a second one, which cuts its graceful shutdown short.
  process.on('SIGINT', () => undefined);
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

const args = process.argv.slice(2);
const entry = args.find((arg) => !arg.startsWith('--')) ?? 'main';
if (!ENTRIES[entry]) {
  process.stderr.write(`bridle: scripts/start.mjs starts main or worker, not ${entry}\n`);
  process.exit(2);
}
const { parts } = ENTRIES[entry];
const hashing = performance.now();
const inputs = new Map(parts.map((part) => [part, hashInputs(part)]));
const reasons = new Map(parts.map((part) => [part, staleness(part, inputs.get(part))]));
const hashMs = performance.now() - hashing;

if (args.includes('--plan')) {
  for (const part of parts) say(`${part.name}: ${reasons.get(part) ? `build (${reasons.get(part)})` : 'current'}\n`);
  const building = parts.filter((part) => reasons.get(part)).map((part) => part.name);
  say(`would build: ${building.length > 0 ? building.join(', ') : 'nothing'}\n`);
  const files = new Set(parts.flatMap((part) => Object.keys(inputs.get(part)))).size;
  say(`checked ${files} input files in ${Math.round(hashMs)} ms\n`);
} else {
  for (const part of parts) {
    if (!reasons.get(part)) continue;
    await build(part, reasons.get(part));
    writeFileSync(join(ROOT, part.stamp), `${JSON.stringify({ version: STAMP_VERSION, inputs: inputs.get(part) })}\n`);
  }
  become(entry);
}
