#!/usr/bin/env node
// `node scripts/check-node.cjs`: the first step of `npm start` and `npm test`. Fails at once,
// saying what to do, when the Node running npm's scripts is older than package.json's
// "engines" (Bridle's dependencies need Node 22: docs/decisions/0011-node-from-npm.md).
// `--installed` (npm's postinstall) says which Node the scripts will run on instead.
// Plain ES5 on purpose: it must run, and say so, on any Node.
'use strict';
var path = require('path');

var engines = require(path.join(__dirname, '..', 'package.json')).engines.node; // ">=22.12"
var wanted = engines
  .replace(/^>=\s*/, '')
  .split('.')
  .map(Number);
var have = process.versions.node.split('.').map(Number);
var recent = have[0] > wanted[0] || (have[0] === wanted[0] && have[1] >= (wanted[1] || 0));

if (process.argv.indexOf('--installed') !== -1) {
  var npmNode = process.env.npm_node_execpath;
  process.stdout.write(
    'bridle: npm scripts run on Node ' +
      process.version +
      ' (' +
      process.execPath +
      ')' +
      (npmNode && npmNode !== process.execPath
        ? '; npm itself runs on ' + npmNode + ', and its EBADENGINE warnings are about that one.\n'
        : '.\n'),
  );
}
if (!recent) {
  process.stderr.write(
    [
      'bridle: this is Node ' + process.version + ' (' + process.execPath + '); Bridle needs Node ' + engines + '.',
      '`npm install --no-audit --no-fund` installs Node 22 into node_modules/.bin (the "node" dev dependency),',
      'which npm scripts find first: run it, then `npm start` or `npm test` again.',
      'Running dist/main.js yourself, or installing with --omit=dev? Use Node 22.12 or later.',
      '',
    ].join('\n'),
  );
  process.exit(1);
}
