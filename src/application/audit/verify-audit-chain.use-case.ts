import { Injectable } from '@nestjs/common';
import type { SignedCheckpoint } from '../../domain/audit/checkpoint';
import { CompactTree, linkLeafHash, MerkleHasher, toHex } from '../../domain/audit/merkle';
import { MissingTilesError } from '../../domain/audit/merkle-tiles';
import { treeRootFromTiles } from './audit-tree-reads';
import { AdminReadRecorder } from './admin-read-recorder';
import { AuditCheckpoints, type CheckpointProblem } from './audit-checkpoints';
import { AuditReader, type ChainVerification } from './ports/audit-reader.port';
import { AuditTree } from './ports/audit-tree.port';
import { SealAuditChainUseCase } from './seal-audit-chain.use-case';

export interface ChainVerificationReport extends ChainVerification {
  /** The position the walk started at: the newest checkpoint's, or 1 for the whole chain. */
  readonly from: number;
  /** The checkpoint the walk started at; null when it walked the whole chain. */
  readonly checkpoint: { readonly position: number; readonly seq: number; readonly headHash: string; readonly createdAt: Date } | null;
  /** The first checkpoint checked that does not hold (its signature, or its link); null when all do. */
  readonly firstBadCheckpoint: number | null;
  /**
   * Full verification only: the first erased row that no erasure's audit row accounts for
   * (emptied around the service), from the walk's start on; null when every one is, and when not checked.
   */
  readonly firstUnexplainedErasure: number | null;
}

/** What checking checkpoints against the chain found. */
export interface CheckpointsCheck {
  readonly checked: number;
  readonly firstBad: { readonly position: number; readonly seq: number; readonly problem: CheckpointProblem } | null;
}

/** Checkpoints per look-up of their links. */
const CHECK_BATCH = 500;

@Injectable()
export class VerifyAuditChainUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
    private readonly sealer: SealAuditChainUseCase,
    private readonly checkpoints: AuditCheckpoints,
    private readonly tree: AuditTree,
    private readonly hasher: MerkleHasher,
  ) {}

  /**
   * Seals what is waiting, so the walk covers every row committed before the request, then
   * checks the chain: from the newest checkpoint (its signature, its link, the links after it),
   * or with `full` every link and every checkpoint. The verdict is also the audit row's
   * result, appended after the walk.
   */
  execute(input: { adminId: string; full?: boolean }): Promise<ChainVerificationReport> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.audit_logs.verify', arguments: input.full ? { full: true } : {} },
      () => this.verify(input.full ?? false),
      (verification) => ({ ...verification, checkpoint: verification.checkpoint && { position: verification.checkpoint.position } }),
    );
  }

  /** The same without an admin: the operator's command. */
  async verify(full: boolean): Promise<ChainVerificationReport> {
    await this.sealer.run({ waitForOtherSealer: true });
    const latest = await this.reader.latestCheckpoint();
    if (full || latest === null) {
      // A log whose head retention pruned is walked from the checkpoint it was pruned up to:
      // the rows before it may be gone; their links and every checkpoint are still checked.
      const pruned = await this.reader.prunedBefore();
      const walk = await this.reader.verify(
        pruned === null ? undefined : { position: pruned.position, seq: pruned.seq, hash: pruned.headHash },
      );
      const check = await this.checkAgainstChain(this.reader.checkpoints());
      const rebuilt = await this.checkRoots();
      const bad = check.firstBad === null || (rebuilt !== null && rebuilt.position < check.firstBad.position) ? rebuilt : check.firstBad;
      const unexplained = await this.reader.firstUnexplainedErasure(pruned?.seq ?? 0);
      return {
        ...walk,
        verified: walk.verified && bad === null && unexplained === null,
        firstBadSeq: walk.firstBadSeq ?? bad?.seq ?? null,
        from: pruned?.position ?? 1,
        checkpoint: null,
        firstBadCheckpoint: bad?.position ?? null,
        firstUnexplainedErasure: unexplained,
      };
    }
    const link = (await this.reader.linksAt([latest.position])).get(latest.position);
    const problem: CheckpointProblem | null =
      this.checkpoints.signatureProblem(latest) ??
      (link?.seq === latest.seq && link.hash === latest.headHash ? null : 'not_in_chain') ??
      (await this.tilesProblem(latest));
    const walk = await this.reader.verify({ position: latest.position, seq: latest.seq, hash: latest.headHash });
    return {
      ...walk,
      verified: walk.verified && problem === null,
      firstBadSeq: walk.firstBadSeq ?? (problem === null ? null : latest.seq),
      from: latest.position,
      checkpoint: { position: latest.position, seq: latest.seq, headHash: latest.headHash, createdAt: latest.createdAt },
      firstBadCheckpoint: problem === null ? null : latest.position,
      firstUnexplainedErasure: null,
    };
  }

  /**
   * The Merkle tree rebuilt from the links, in position order: each checkpoint's signed root
   * must be its root at the checkpoint's size, and so must the root the stored tiles give (proofs
   * are computed from them). The first checkpoint where either differs; null when all hold.
   */
  private async checkRoots(): Promise<CheckpointsCheck['firstBad']> {
    const rebuilt = new CompactTree(this.hasher);
    const pending: SignedCheckpoint[] = [];
    for await (const checkpoint of this.reader.checkpoints()) if (checkpoint.tree !== null) pending.push(checkpoint);
    let next = 0;
    const missing = '0'.repeat(64);
    const check = async (): Promise<CheckpointsCheck['firstBad']> => {
      while (next < pending.length && pending[next].position === rebuilt.size) {
        const checkpoint = pending[next++];
        const root = checkpoint.tree!.rootHash;
        if (toHex(rebuilt.root()) !== root || (await this.tilesProblem(checkpoint)) !== null)
          return { position: checkpoint.position, seq: checkpoint.seq, problem: 'root_mismatch' };
      }
      return null;
    };
    for await (const link of this.reader.links()) {
      // A position without its link (verify's walk names it) counts as the backfill counted it: 64 zeros.
      while (rebuilt.size + 1 < link.position) {
        rebuilt.append(linkLeafHash(this.hasher, missing));
        const bad = await check();
        if (bad !== null) return bad;
      }
      rebuilt.append(linkLeafHash(this.hasher, link.hash));
      const bad = await check();
      if (bad !== null) return bad;
    }
    // A checkpoint past the last link: its tree is gone.
    const beyond = pending[next];
    return beyond === undefined ? null : { position: beyond.position, seq: beyond.seq, problem: 'root_mismatch' };
  }

  /** Whether the stored tiles give the checkpoint's signed root at its size (checkpoints before the tree have none to give). */
  private async tilesProblem(checkpoint: SignedCheckpoint): Promise<CheckpointProblem | null> {
    if (checkpoint.tree === null) return null;
    const root = await treeRootFromTiles(this.tree, this.hasher, checkpoint.position).catch((error: unknown) => {
      if (error instanceof MissingTilesError) return null;
      throw error;
    });
    return root !== null && toHex(root) === checkpoint.tree.rootHash ? null : 'root_mismatch';
  }

  /**
   * Each checkpoint, oldest first: signed by the configured key, and the chain still holds its
   * row with its hash at its position. A rewritten past or a cut tail fails the first checkpoint
   * it reaches, whether the checkpoint comes from the table or from a digest file kept elsewhere.
   */
  async checkAgainstChain(checkpoints: AsyncIterable<SignedCheckpoint> | Iterable<SignedCheckpoint>): Promise<CheckpointsCheck> {
    let checked = 0;
    let batch: SignedCheckpoint[] = [];
    const flush = async (): Promise<CheckpointsCheck['firstBad']> => {
      const links = await this.reader.linksAt(batch.map((checkpoint) => checkpoint.position));
      for (const checkpoint of batch) {
        checked += 1;
        const signature = this.checkpoints.signatureProblem(checkpoint);
        if (signature !== null) return { position: checkpoint.position, seq: checkpoint.seq, problem: signature };
        const link = links.get(checkpoint.position);
        if (link?.seq !== checkpoint.seq || link.hash !== checkpoint.headHash)
          return { position: checkpoint.position, seq: checkpoint.seq, problem: 'not_in_chain' };
      }
      batch = [];
      return null;
    };
    for await (const checkpoint of checkpoints) {
      batch.push(checkpoint);
      if (batch.length < CHECK_BATCH) continue;
      const bad = await flush();
      if (bad !== null) return { checked, firstBad: bad };
    }
    const bad = batch.length === 0 ? null : await flush();
    return { checked, firstBad: bad };
  }
}
