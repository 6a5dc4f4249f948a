import { Injectable } from '@nestjs/common';
import { AuditCheckpoints } from './audit-checkpoints';
import { AuditChainSealer } from './ports/audit-chain-sealer.port';

/** Rows per sealing transaction: short enough never to hold the sealer's lock for long. */
export const SEAL_BATCH = 1000;

/**
 * Seals what is waiting, batch after batch, until a batch comes back short (the queue is
 * empty, or another process holds the sealer's lock and is doing the same). Every process
 * runs it every AUDIT_SEAL_INTERVAL_MS; the admin's verify runs it first, waiting for another
 * process's batch rather than leaving its rows to it. With checkpoints (every process that
 * Nest builds), each batch may end with a signed checkpoint; without (a benchmark, a test of
 * sealing alone), none is written.
 */
@Injectable()
export class SealAuditChainUseCase {
  constructor(
    private readonly sealer: AuditChainSealer,
    private readonly checkpoints?: AuditCheckpoints,
  ) {}

  /** @returns how many rows this call sealed. */
  async run(options: { waitForOtherSealer?: boolean } = {}): Promise<number> {
    let sealed = 0;
    for (;;) {
      const batch = await this.sealer.sealBatch(SEAL_BATCH, options.waitForOtherSealer, this.checkpoints?.writer);
      sealed += batch;
      if (batch < SEAL_BATCH) return sealed;
    }
  }
}
