import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { AuditChainSealer } from '../../../application/audit/ports/audit-chain-sealer.port';
import { selectRow, sql } from '../sql';

const SEALED_ROW = z.object({ sealed: z.number().int() });

/** The database's `audit_seal` function (migrations 1766188800000, 1766448000000): one statement, one transaction per batch. */
@Injectable()
export class PostgresAuditChainSealer extends AuditChainSealer {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async sealBatch(maxRows: number): Promise<number> {
    const row = await selectRow(this.dataSource, sql`SELECT audit_seal(${maxRows}::int) AS sealed`, SEALED_ROW);
    return row!.sealed;
  }
}
