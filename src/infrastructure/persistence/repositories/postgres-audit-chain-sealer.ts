import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { AuditChainSealer } from '../../../application/audit/ports/audit-chain-sealer.port';
import { AUDIT_SEAL_LOCK } from '../migrations/1766188800000-audit-chain-sealing';
import { inTransaction, run, selectRow, sql } from '../sql';

const SEALED_ROW = z.object({ sealed: z.number().int() });

/** The database's `audit_seal` function (migrations 1766188800000, 1766448000000): one statement, one transaction per batch. */
@Injectable()
export class PostgresAuditChainSealer extends AuditChainSealer {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async sealBatch(maxRows: number, waitForOtherSealer = false): Promise<number> {
    const seal = async () => (await selectRow(this.dataSource, sql`SELECT audit_seal(${maxRows}::int) AS sealed`, SEALED_ROW))!.sealed;
    if (!waitForOtherSealer) return seal();
    // audit_seal only tries the lock; taken first in the same transaction, it waits here
    // for the other process's batch to commit, and audit_seal's try then holds it already.
    return inTransaction(this.dataSource, async () => {
      await run(this.dataSource, sql`SELECT pg_advisory_xact_lock(${AUDIT_SEAL_LOCK})`);
      return seal();
    });
  }
}
