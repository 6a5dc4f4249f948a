#!/usr/bin/env node
// `node scripts/bundle-server.mjs [from] [to]` (npm run build: dist-compiled → dist): bundles
// the compiled server, tsc's output, into a few files, because finding and reading some 1 900
// CommonJS modules one by one was much of a start's time (docs/decisions/0009-bundled-server.md).
// tsc's output and not the sources, so the decorator metadata Nest injects by is already plain
// code. Writes:
//   to/main.js, to/worker.js, to/admin.js   what you run (`node dist/main.js`): each turns on
//                                           Node's compile cache, then loads its bundle
//   to/server/                              the bundles, their shared chunks and source maps
//   to/server/bundled-packages.json         the npm packages inside the bundles
// A package is either in the bundle or loaded from node_modules, never both: two copies of a
// package keep two sets of its state (class-transformer's metadata, pg's error classes). The
// packages below stay outside, with everything they depend on, because something loads them by
// name at run time or because they read files next to themselves; the process tests check that
// nothing bundled is also loaded from node_modules (test/e2e/process.e2e.spec.ts).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const EXTERNAL = [
  // Loads its WebAssembly and data files from its own folder; imported lazily, only when embedded.
  '@electric-sql/pglite',
  // @nestjs/mapped-types and ValidationPipe load these by name at run time.
  'class-validator',
  'class-transformer',
  // TypeORM loads its driver by name at run time.
  'pg',
  // @nestjs/serve-static loads it by name to serve the web console.
  'express',
  // Transports run in worker threads started from files of these packages.
  'pino',
  'thread-stream',
  // Serves its own files (the /docs page).
  'swagger-ui-dist',
  // OpenTelemetry, loaded only when tracing is on (src/infrastructure/telemetry/): its
  // instrumentations patch http, express, pg and pino through require hooks, and all of them
  // must share the one @opentelemetry/api the SDK registers with.
  '@opentelemetry/api',
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-express',
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/instrumentation-pino',
  '@opentelemetry/resources',
  '@opentelemetry/semantic-conventions',
];

/** Optional peers Nest and @nestjs/swagger try to load and do without; any other missing import fails the build. */
const ABSENT_ON_PURPOSE = ['@nestjs/microservices', '@nestjs/websockets', '@fastify/static'];

const ENTRIES = ['main', 'worker', 'admin'];

/**
 * Loaded by the launchers of main and worker before their bundle: it starts OpenTelemetry when
 * configured. Inside the bundle it would come too late, because a chunk requires the packages
 * left outside (express, pg, `http`) at its top, before any of its code runs.
 */
const START_TRACING = { name: 'start-tracing', file: 'infrastructure/telemetry/start-tracing.js', before: ['main', 'worker'] };

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const packageOf = (path) => path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
/** The package a bare import names: `@scope/name/x` → `@scope/name`, `name/x` → `name`. */
const packageNamed = (id) => /^((?:@[^/]+\/)?[^./][^/]*)/.exec(id)?.[1];

/** The packages and, transitively, what they depend on (by name, as installed at the root). */
async function withDependencies(names) {
  const all = new Set();
  for (const queue = [...names]; queue.length > 0;) {
    const name = queue.pop();
    if (all.has(name)) continue;
    all.add(name);
    const manifest = await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8').then(JSON.parse, () => ({}));
    queue.push(...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }));
  }
  return all;
}

/**
 * Hands rolldown each compiled file with the source map tsc wrote next to it, so the bundle's
 * maps lead back to src/*.ts (NODE_OPTIONS=--enable-source-maps uses them in stack traces).
 */
function compiledSourceMaps(from) {
  return {
    name: 'compiled-source-maps',
    async load(id) {
      if (relative(from, id).startsWith('..') || !id.endsWith('.js')) return null;
      const code = await readFile(id, 'utf8');
      const map = await readFile(`${id}.map`, 'utf8').catch(() => null);
      return { code: code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), map };
    },
  };
}

/**
 * @nestjs/typeorm looks up two classes TypeORM 1 no longer has (`Connection`, `AbstractRepository`)
 * with a require('typeorm') at run time, which from the bundle would load a second TypeORM from
 * node_modules. In the TypeORM 1 the bundle holds both are undefined, so the bundle says so.
 */
function nestTypeOrmCompat() {
  const compat = /node_modules\/@nestjs\/typeorm\/dist\/common\/typeorm-compat\.js$/;
  return {
    name: 'nestjs-typeorm-compat',
    load(id) {
      if (!compat.test(id.replaceAll('\\', '/'))) return null;
      return 'export const Connection = undefined;\nexport const AbstractRepository = undefined;\n';
    },
  };
}

async function bundleServer(fromDir, toDir) {
  const from = resolve(fromDir);
  const to = resolve(toDir);
  const unexpected = [];
  const external = await withDependencies(EXTERNAL);
  await rm(to, { recursive: true, force: true });
  const { output } = await build({
    input: {
      ...Object.fromEntries(ENTRIES.map((name) => [name, join(from, `${name}.js`)])),
      [START_TRACING.name]: join(from, START_TRACING.file),
    },
    platform: 'node',
    external: (id) => external.has(packageNamed(id)),
    plugins: [compiledSourceMaps(from), nestTypeOrmCompat()],
    onLog(level, log, handler) {
      const missing = log.code === 'UNRESOLVED_IMPORT' ? /Could not resolve '([^']+)'/.exec(log.message)?.[1] : undefined;
      if (missing && ABSENT_ON_PURPOSE.includes(packageNamed(missing))) return;
      if (missing) unexpected.push(missing);
      handler(level, log);
    },
    output: {
      dir: join(to, 'server'),
      format: 'cjs',
      // Nest names loggers and errors after classes: keep every class's and function's name.
      keepNames: true,
      sourcemap: true,
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
    },
  });
  if (unexpected.length > 0) throw new Error(`the bundle imports what is not installed: ${[...new Set(unexpected)].join(', ')}`);
  const bundled = new Set();
  for (const chunk of output) if (chunk.type === 'chunk') for (const id of chunk.moduleIds) bundled.add(packageOf(id));
  bundled.delete(undefined);
  await writeFile(join(to, 'server', 'bundled-packages.json'), `${JSON.stringify([...bundled].sort(), null, 2)}\n`);
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const [major, minor = 0] = manifest.engines.node
    .replace(/^>=\s*/, '')
    .split('.')
    .map(Number);
  for (const name of ENTRIES) {
    await writeFile(
      join(to, `${name}.js`),
      [
        `'use strict';`,
        `// Written by scripts/bundle-server.mjs. An older Node than package.json's engines stops here`,
        `// with a sentence rather than failing somewhere in the bundle.`,
        `const [major, minor] = process.versions.node.split('.').map(Number);`,
        `if (major < ${major} || (major === ${major} && minor < ${minor})) {`,
        `  process.stderr.write(\`bridle: this is Node \${process.version}; Bridle needs Node >=${major}.${minor} (docs/operations.md).\\n\`);`,
        `  process.exit(1);`,
        `}`,
        `// V8 keeps the compiled code of the bundle on disk (NODE_COMPILE_CACHE, else the OS's temp`,
        `// folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a start after the first skips`,
        `// compiling it; a rebuilt file is compiled again.`,
        `require('node:module').enableCompileCache();`,
        ...(START_TRACING.before.includes(name) ? [`require('./server/${START_TRACING.name}.js');`] : []),
        `require('./server/${name}.js');`,
        '',
      ].join('\n'),
    );
  }
  return { packages: bundled.size };
}

const [from = 'dist-compiled', to = 'dist'] = process.argv.slice(2);
const started = performance.now();
const { packages } = await bundleServer(from, to);
process.stdout.write(
  `bundle-server: ${from} into ${to} (${packages} npm packages inside) in ${Math.round(performance.now() - started)} ms\n`,
);
