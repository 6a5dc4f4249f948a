import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { AuditChainSealer } from '../../../application/audit/ports/audit-chain-sealer.port';
import { selectRow, sql } from '../sql';

const SEALED_ROW = z.object({ sealed: z.number().int() });
const TAIL_ROW = z.object({ rows: z.coerce.number().int(), oldest_at: z.coerce.date().nullable() });

/** The database's `audit_seal` function (migration 1766188800000): one statement, one transaction per batch. */
@Injectable()
export class PostgresAuditChainSealer extends AuditChainSealer {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async sealBatch(maxRows: number): Promise<number> {
    const row = await selectRow(this.dataSource, sql`SELECT audit_seal(${maxRows}::int) AS sealed`, SEALED_ROW);
    return row!.sealed;
  }

  async tail(): Promise<{ rows: number; oldestAt: Date | null }> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT count(*) AS rows, min(a.created_at) AS oldest_at FROM audit_unsealed u JOIN audit_log a ON a.seq = u.seq`,
      TAIL_ROW,
    );
    return { rows: row!.rows, oldestAt: row!.oldest_at };
  }
}
