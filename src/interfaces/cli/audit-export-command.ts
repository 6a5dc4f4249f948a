import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { INestApplicationContext } from '@nestjs/common';
import { ExportAuditPackUseCase } from '../../application/audit/export-audit-pack.use-case';

/** `audit-export [--from <position>] [--to <position>] --out <dir>`: an export pack for an auditor. */
export interface AuditExportCommand {
  readonly name: 'audit-export';
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly out: string;
}

export const AUDIT_EXPORT_USAGE = `  audit-export --out <dir> [--from <position>] [--to <position>]
                                       an export pack of the chain's links from..to (1 and
                                       the newest checkpoint's position by default): pack.json,
                                       rows.ndjson, checkpoints.ndjson, for
                                       node verifier/bridle-audit-verify.mjs <dir> --public-key …`;

/** @throws Error with the usage problem (the caller wraps it as a usage error). */
export function parseAuditExport(rest: readonly string[], usageError: (message: string) => Error): AuditExportCommand {
  const values = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const [option, value] = [rest[i], rest[i + 1]];
    if (!['--from', '--to', '--out'].includes(option)) throw usageError(`audit-export does not take ${option}`);
    if (value === undefined || value.startsWith('-')) throw usageError(`${option} takes a value`);
    values.set(option, value);
  }
  const position = (option: string): number | undefined => {
    const text = values.get(option);
    if (text === undefined) return undefined;
    if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(Number(text))) throw usageError(`${option} must be a whole number from 1`);
    return Number(text);
  };
  const out = values.get('--out');
  if (out === undefined) throw usageError('audit-export needs --out <dir>');
  return { name: 'audit-export', from: position('--from'), to: position('--to'), out };
}

/** Writes the pack into `out` (created if needed). @returns what it wrote, one line. */
export async function runAuditExport(command: AuditExportCommand, app: Pick<INestApplicationContext, 'get'>): Promise<string> {
  const pack = await app.get(ExportAuditPackUseCase).execute({ from: command.from, to: command.to });
  await mkdir(command.out, { recursive: true });
  const rows = createWriteStream(join(command.out, 'rows.ndjson'));
  let count = 0;
  for await (const row of pack.rows) {
    count += 1;
    if (!rows.write(`${JSON.stringify(row)}\n`)) await once(rows, 'drain');
  }
  rows.end();
  await once(rows, 'finish');
  await writeFile(join(command.out, 'checkpoints.ndjson'), pack.checkpoints.map((line) => `${JSON.stringify(line)}\n`).join(''));
  await writeFile(join(command.out, 'pack.json'), `${JSON.stringify(pack.manifest, null, 2)}\n`);
  return `Exported positions ${pack.manifest.from}–${pack.manifest.to} (${count} rows, ${pack.checkpoints.length} checkpoints) to ${command.out}.`;
}
