import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { AuditEvidence, type LinkedRowEvidence, type RowEvidence } from '../../../application/audit/ports/audit-evidence.port';
import { raw, selectRow, selectRows, sql, type Statement } from '../sql';

/** Links per statement when exporting a range. */
const RANGE_BATCH = 5_000;

const COMMITTED = raw(`(a.personal_salt IS NOT NULL OR a.personal_commitment IS NOT NULL)`);
const FORM = sql`CASE WHEN a.seq IS NULL THEN 'pruned' WHEN ${COMMITTED} THEN 'committed'
  WHEN a.erased_at IS NOT NULL THEN 'erased-legacy' ELSE 'legacy' END`;

/** The canonical text the link hashes (audit_row_canonical, as the sealer computed it); a legacy row's only when asked for. */
function canonical(withLegacyText: boolean): Statement {
  return sql`CASE WHEN a.seq IS NULL THEN NULL WHEN ${COMMITTED} THEN audit_row_canonical(a)
    WHEN a.erased_at IS NULL AND ${withLegacyText}::boolean THEN audit_row_canonical(a) END`;
}

const LINK = z.object({
  position: z.coerce.number().int(),
  seq: z.coerce.number().int(),
  prev_hash: z.string(),
  hash: z.string(),
  form: z.enum(['committed', 'legacy', 'erased-legacy', 'pruned']),
  canonical: z.string().nullable(),
  erased_at: z.coerce.date().nullable(),
  erased_by: z.string().nullable(),
});

const toLink = (row: z.output<typeof LINK>): LinkedRowEvidence => ({
  position: row.position,
  seq: row.seq,
  prevHash: row.prev_hash,
  hash: row.hash,
  form: row.form,
  canonical: row.canonical,
  erasedAt: row.erased_at,
  erasedBy: row.erased_by,
});

const ROW = LINK.extend({
  position: z.coerce.number().int().nullable(),
  prev_hash: z.string().nullable(),
  hash: z.string().nullable(),
  actor_id: z.string(),
  salt: z.string().nullable(),
  personal_text: z.string().nullable(),
}).transform((row): RowEvidence => ({
  seq: row.seq,
  actorId: row.actor_id,
  link:
    row.position === null || row.prev_hash === null || row.hash === null
      ? null
      : toLink({ ...row, position: row.position, prev_hash: row.prev_hash, hash: row.hash }),
  opening: row.salt === null || row.personal_text === null ? null : { salt: row.salt, text: row.personal_text },
}));

const HEAD = z.object({ head: z.coerce.number().int().nullable() });

/** audit_log and audit_chain, read for receipts and export packs (docs/audit-log.md#receipts). */
@Injectable()
export class PostgresAuditEvidence extends AuditEvidence {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  row(seq: number, withLegacyText: boolean): Promise<RowEvidence | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT a.seq, a.actor_id, c.position, c.prev_hash, c.hash, ${FORM} AS form, ${canonical(withLegacyText)} AS canonical,
                 a.erased_at, a.erased_by,
                 a.personal_salt::text AS salt,
                 CASE WHEN a.personal_salt IS NOT NULL THEN
                   jsonb_build_object('arguments', a.arguments, 'result', a.result, 'errorMessage', a.error_message)::text END AS personal_text
          FROM audit_log a LEFT JOIN audit_chain c ON c.seq = a.seq
          WHERE a.seq = ${seq}::bigint
          ORDER BY c.position LIMIT 1`,
      ROW,
    );
  }

  async *range(from: number, to: number): AsyncIterable<LinkedRowEvidence> {
    let after = from - 1;
    while (after < to) {
      const rows = await selectRows(
        this.dataSource,
        sql`SELECT c.position, c.seq, c.prev_hash, c.hash, ${FORM} AS form, ${canonical(false)} AS canonical, a.erased_at, a.erased_by
            FROM audit_chain c LEFT JOIN audit_log a ON a.seq = c.seq
            WHERE c.position > ${after}::bigint AND c.position <= ${to}::bigint
            ORDER BY c.position LIMIT ${RANGE_BATCH}`,
        LINK,
      );
      yield* rows.map(toLink);
      if (rows.length < RANGE_BATCH) return;
      after = rows[rows.length - 1].position;
    }
  }

  async head(): Promise<number> {
    const row = await selectRow(this.dataSource, sql`SELECT max(position) AS head FROM audit_chain`, HEAD);
    return row?.head ?? 0;
  }
}
