#!/usr/bin/env node
// Bridle's offline audit verifier: an export pack or a receipt, with the log's public key
// alone. No database, no Bridle service, nothing but Node.js ≥ 20. See README.md.
//
//   node bridle-audit-verify.mjs <pack-dir> --public-key <key> [--checkpoint <kept file>]... [--json]
//   node bridle-audit-verify.mjs --receipt <receipt.json> --public-key <key> [--consistency <proof.json>] [--json]
//
// Exit status: 0 everything holds, 1 something does not (the report says what, and where), 2 usage.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readPublicKey } from './lib/checkpoints.mjs';
import { verifyPack } from './lib/pack.mjs';
import { verifyReceipt } from './lib/receipt.mjs';

const USAGE = `usage: bridle-audit-verify <pack-dir> --public-key <pem|base64 SPKI|note verifier key|file> [--checkpoint <file>]... [--json]
       bridle-audit-verify --receipt <file> --public-key <key> [--consistency <file>] [--json]`;

function usage(message) {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      'public-key': { type: 'string' },
      checkpoint: { type: 'string', multiple: true },
      receipt: { type: 'string' },
      consistency: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
} catch (error) {
  usage(error.message);
}
const { values, positionals } = args;
if (values['public-key'] === undefined) usage('--public-key is required');
if ((values.receipt === undefined) === (positionals.length !== 1)) usage('give either a pack directory or --receipt');

const key = readPublicKey(values['public-key']);
const started = process.hrtime.bigint();
const report =
  values.receipt !== undefined
    ? verifyReceipt(
        JSON.parse(readFileSync(values.receipt, 'utf8')),
        key,
        values.consistency === undefined ? null : JSON.parse(readFileSync(values.consistency, 'utf8')),
      )
    : await verifyPack(positionals[0], key, values.checkpoint ?? []);
report.ms = Number((process.hrtime.bigint() - started) / 1_000_000n);

if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const out = [report.ok ? 'VERIFIED' : 'NOT VERIFIED'];
  if (report.rows !== undefined)
    out.push(
      `rows: ${report.rows} (${report.committed} hashed from their fields, ${report.legacy} from before commitments checked by their link, ` +
        `${report.pruned} pruned, ${report.erased} erased); checkpoints: ${report.checkpoints}`,
    );
  if (report.firstBadPosition !== null && report.firstBadPosition !== undefined) out.push(`first bad position: ${report.firstBadPosition}`);
  for (const problem of report.problems) out.push(`  ✗ ${problem}`);
  for (const check of report.checked) out.push(`  ✓ ${check}`);
  out.push(`${report.ms} ms`);
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exit(report.ok ? 0 : 1);
