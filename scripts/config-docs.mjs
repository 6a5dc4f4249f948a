// `npm run config:docs`: writes the tables of docs/configuration.md from the settings loadConfig
// reads (src/infrastructure/config/settings/), between its `<!-- settings:start … -->` and
// `<!-- settings:end -->` markers. test/unit/infrastructure/config-docs.spec.ts fails while the
// file is not what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const file = join(root, 'docs', 'configuration.md');

// src/ loads as the tests load it: compiled by swc with the repository's one configuration.
const swc = { ...JSON.parse(readFileSync(join(root, 'test', 'support', 'swc.json'), 'utf8')), swcrc: false, configFile: false };
Module._extensions['.ts'] = (module, filename) => {
  module._compile(transformSync(readFileSync(filename, 'utf8'), { ...swc, filename }).code, filename);
};
const { renderSettingsDocs } = createRequire(import.meta.url)(join(root, 'src', 'infrastructure', 'config', 'settings-docs.ts'));

const before = readFileSync(file, 'utf8');
const after = renderSettingsDocs(before);
if (after !== before) writeFileSync(file, after);
process.stdout.write(`config:docs: docs/configuration.md ${after === before ? 'already up to date' : 'rewritten'}\n`);
