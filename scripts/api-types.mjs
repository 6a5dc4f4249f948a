// `npm run api:types`: the console's API types, generated from the server's OpenAPI document.
//
// Writes web/src/generated/openapi.json (the document GET /docs-json serves) and, from it,
// web/src/generated/types.gen.ts (and index.ts) with @hey-api/openapi-ts: types only, no
// client runtime; web/src/api/ names them. Needs no server and no database: src/openapi.ts
// builds the document from the real module graph in Nest's preview mode. `npm run build:web`,
// `npm run lint` and `npm run typecheck` run it first; the folder is not committed.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import { transformSync } from '@swc/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'web', 'src', 'generated');
const started = Date.now();

// src/ loads as the tests load it: compiled by swc with the repository's one configuration.
const swc = { ...JSON.parse(readFileSync(join(root, 'test', 'support', 'swc.json'), 'utf8')), swcrc: false, configFile: false };
Module._extensions['.ts'] = (module, filename) => {
  module._compile(transformSync(readFileSync(filename, 'utf8'), { ...swc, filename }).code, filename);
};
const { openApiDocument } = createRequire(import.meta.url)(join(root, 'src', 'openapi.ts'));
const document = await openApiDocument();

// Generated beside, then moved in file by file, and only the files that changed: a type check
// running meanwhile in the same working tree never finds the folder empty or half written.
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const staging = mkdtempSync(join(root, 'node_modules', '.cache', 'api-types-'));
try {
  await createClient({
    input: structuredClone(document),
    output: { path: staging, tsConfigPath: join(root, 'web', 'tsconfig.json') },
    plugins: ['@hey-api/typescript'],
    logs: { level: 'silent' },
  });
  writeFileSync(join(staging, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
  mkdirSync(out, { recursive: true });
  const files = readdirSync(staging);
  for (const file of files) {
    const target = join(out, file);
    if (!existsSync(target) || !readFileSync(target).equals(readFileSync(join(staging, file)))) renameSync(join(staging, file), target);
  }
  for (const file of readdirSync(out)) if (!files.includes(file)) rmSync(join(out, file), { recursive: true, force: true });
} finally {
  rmSync(staging, { recursive: true, force: true });
}
process.stdout.write(`api:types: ${Object.keys(document.paths).length} paths into web/src/generated in ${Date.now() - started} ms\n`);
