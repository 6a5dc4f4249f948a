// Preloaded into a built service (NODE_OPTIONS=--require …) by the process tests: records every
// module the process resolves, by require and by import alike, and when it exits writes the npm
// packages they came from in node_modules, one per line, to LOADED_PACKAGES_FILE.
'use strict';
const { writeFileSync } = require('node:fs');
const { registerHooks } = require('node:module');

const packages = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(resolved.url)?.[1];
    if (name) packages.add(name);
    return resolved;
  },
});
process.on('exit', () => writeFileSync(process.env.LOADED_PACKAGES_FILE, [...packages].sort().join('\n')));
