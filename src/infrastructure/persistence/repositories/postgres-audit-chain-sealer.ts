import { insertCheckpoint } from '../tables/audit-checkpoints';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { AuditChainSealer, type CheckpointWriter } from '../../../application/audit/ports/audit-chain-sealer.port';
import type { ChainState } from '../../../domain/audit/checkpoint';
import { MerkleHasher } from '../../../domain/audit/merkle';
import { merkleHasher } from '../../security/sha256';
import { AUDIT_SEAL_LOCK } from '../migrations/1766188800000-audit-chain-sealing';
import { inTransaction, run, selectRow, sql } from '../sql';
import { treeRoot } from '../tables/audit-tree-tiles';

const SEALED_ROW = z.object({ sealed: z.number().int() });
const LOCKED_ROW = z.object({ locked: z.boolean() });
const STATE_ROW = z
  .object({
    position: z.coerce.number().int(),
    seq: z.coerce.number().int(),
    hash: z.string(),
    first_sealed_at: z.coerce.date(),
    last_position: z.coerce.number().int().nullable(),
    last_created_at: z.coerce.date().nullable(),
  })
  .transform((row): ChainState => ({
    head: { position: row.position, seq: row.seq, hash: row.hash },
    last: row.last_position === null ? null : { position: row.last_position, createdAt: row.last_created_at! },
    firstSealedAt: row.first_sealed_at,
  }));

/**
 * The database's `audit_seal` function (migrations 1766188800000, 1766448000000): one statement,
 * one transaction per batch, which also appends the batch's links to the Merkle tree's tiles
 * (migration 1767981600000); with a checkpoint writer, the checkpoint, with the tree's root,
 * goes in the same transaction (migration 1766966400000).
 */
@Injectable()
export class PostgresAuditChainSealer extends AuditChainSealer {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: MerkleHasher = merkleHasher,
  ) {
    super();
  }

  async sealBatch(maxRows: number, waitForOtherSealer = false, checkpoint?: CheckpointWriter): Promise<number> {
    if (!waitForOtherSealer && checkpoint === undefined) {
      return (await selectRow(this.dataSource, sql`SELECT audit_seal(${maxRows}::int) AS sealed`, SEALED_ROW))!.sealed;
    }
    return inTransaction(this.dataSource, async () => {
      // audit_seal only tries the lock; taken first in the same transaction (waiting here for
      // another process's batch, or trying), audit_seal's own try then holds it already. Only
      // the holder may write a checkpoint, so it must know it holds it: audit_seal's 0 does not say.
      if (waitForOtherSealer) await run(this.dataSource, sql`SELECT pg_advisory_xact_lock(${AUDIT_SEAL_LOCK})`);
      else {
        const { locked } = (await selectRow(
          this.dataSource,
          sql`SELECT pg_try_advisory_xact_lock(${AUDIT_SEAL_LOCK}) AS locked`,
          LOCKED_ROW,
        ))!;
        if (!locked) return 0;
      }
      const sealed = (await selectRow(this.dataSource, sql`SELECT audit_seal(${maxRows}::int) AS sealed`, SEALED_ROW))!.sealed;
      if (checkpoint !== undefined) await this.checkpoint(checkpoint);
      return sealed;
    });
  }

  private async checkpoint(writer: CheckpointWriter): Promise<void> {
    const state = await selectRow(
      this.dataSource,
      sql`SELECT h.position, h.seq, h.hash, f.sealed_at AS first_sealed_at, k.position AS last_position, k.created_at AS last_created_at
          FROM (SELECT position, seq, hash FROM audit_chain ORDER BY position DESC LIMIT 1) h
          CROSS JOIN (SELECT sealed_at FROM audit_chain ORDER BY position LIMIT 1) f
          LEFT JOIN (SELECT position, created_at FROM audit_checkpoints ORDER BY position DESC LIMIT 1) k ON TRUE`,
      STATE_ROW,
    );
    if (state === null || !writer.due(state)) return;
    // The tree holds exactly the links: audit_seal appended this batch's in the same transaction.
    const signed = writer.sign(state, await treeRoot(this.dataSource, this.hasher, state.head.position));
    await run(this.dataSource, insertCheckpoint(signed));
  }
}
