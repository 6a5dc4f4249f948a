import { Injectable } from '@nestjs/common';
import { AuditTreeMismatchError, InvalidProofRequestError } from '../../domain/audit/audit-errors';
import type { SignedCheckpoint } from '../../domain/audit/checkpoint';
import { fromHex, type Hash, linkLeafHash, MerkleHasher, verifyConsistency, verifyInclusion } from '../../domain/audit/merkle';
import { MissingTilesError } from '../../domain/audit/merkle-tiles';
import { toBase64 } from '../../domain/audit/signed-note';
import { AdminReadRecorder } from './admin-read-recorder';
import { consistencyProofFromTiles, inclusionProofFromTiles, treeRootFromTiles } from './audit-tree-reads';
import { AuditReader } from './ports/audit-reader.port';
import { AuditTree } from './ports/audit-tree.port';

/** That the row at `position` is leaf `leafIndex` of the tree of `treeSize` leaves a checkpoint signed. */
export interface InclusionProofAnswer {
  readonly position: number;
  readonly seq: number;
  /** The link's hash (hex): the leaf's data. */
  readonly linkHash: string;
  readonly leafIndex: number;
  readonly treeSize: number;
  /** SHA-256(0x00 ‖ link hash), base64. */
  readonly leafHash: string;
  /** RFC 9162 inclusion path, base64, the leaf's sibling first. */
  readonly proof: readonly string[];
  /** The tree's root, base64. */
  readonly rootHash: string;
  /** The checkpoint of `treeSize` as a C2SP signed note; null for a checkpoint written before the tree. */
  readonly checkpoint: string | null;
}

/** That the tree of `from` leaves is a prefix of the tree of `to`, both of checkpoints. */
export interface ConsistencyProofAnswer {
  readonly from: number;
  readonly to: number;
  /** RFC 9162 consistency proof, base64. */
  readonly proof: readonly string[];
  readonly fromCheckpoint: string | null;
  readonly toCheckpoint: string | null;
}

/**
 * Inclusion and consistency proofs over the audit chain's Merkle tree
 * (docs/decisions/0016-merkle-tree-over-the-audit-chain.md), against the sizes of signed
 * checkpoints only: a proof against a size nobody signed proves nothing to an auditor. Each is
 * checked against the signed root before it is given out. For admins (audited like every admin
 * read) and the operator's command.
 */
@Injectable()
export class AuditProofsUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly tree: AuditTree,
    private readonly hasher: MerkleHasher,
    private readonly recorder: AdminReadRecorder,
  ) {}

  inclusionFor(input: { adminId: string; position: number; treeSize?: number }): Promise<InclusionProofAnswer> {
    return this.recorder.around(
      {
        adminId: input.adminId,
        tool: 'admin.audit_logs.inclusion_proof',
        arguments: { position: input.position, treeSize: input.treeSize },
      },
      () => this.inclusion(input.position, input.treeSize),
      (answer) => ({ leafIndex: answer.leafIndex, treeSize: answer.treeSize }),
    );
  }

  consistencyFor(input: { adminId: string; from: number; to: number }): Promise<ConsistencyProofAnswer> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.audit_logs.consistency_proof', arguments: { from: input.from, to: input.to } },
      () => this.consistency(input.from, input.to),
      (answer) => ({ from: answer.from, to: answer.to, proof: answer.proof.length }),
    );
  }

  /** The proof that the row at chain position `position` is in the tree of checkpoint `treeSize` (default: the newest). */
  async inclusion(position: number, treeSize?: number): Promise<InclusionProofAnswer> {
    const checkpoint = await this.checkpointOf('treeSize', treeSize);
    const size = checkpoint.position;
    if (!Number.isSafeInteger(position) || position < 1 || position > size)
      throw new InvalidProofRequestError('position', `position must be a chain position from 1 to the tree size, ${size}`);
    const link = (await this.reader.linksAt([position])).get(position);
    if (link === undefined) throw new AuditTreeMismatchError();
    const leafHash = linkLeafHash(this.hasher, link.hash);
    const root = await this.rootOf(checkpoint);
    const proof = await this.read(() => inclusionProofFromTiles(this.tree, this.hasher, position - 1, size));
    if (!verifyInclusion(this.hasher, position - 1, size, leafHash, proof, root)) throw new AuditTreeMismatchError();
    return {
      position,
      seq: link.seq,
      linkHash: link.hash,
      leafIndex: position - 1,
      treeSize: size,
      leafHash: toBase64(leafHash),
      proof: proof.map(toBase64),
      rootHash: toBase64(root),
      checkpoint: checkpoint.tree?.note ?? null,
    };
  }

  /** The proof that checkpoint `from`'s tree is a prefix of checkpoint `to`'s. */
  async consistency(from: number, to: number): Promise<ConsistencyProofAnswer> {
    const first = await this.checkpointOf('from', from);
    const second = await this.checkpointOf('to', to);
    if (from > to) throw new InvalidProofRequestError('from', 'from must not be larger than to');
    const proof = await this.read(() => consistencyProofFromTiles(this.tree, this.hasher, from, to));
    if (!verifyConsistency(this.hasher, from, to, proof, await this.rootOf(first), await this.rootOf(second)))
      throw new AuditTreeMismatchError();
    return { from, to, proof: proof.map(toBase64), fromCheckpoint: first.tree?.note ?? null, toCheckpoint: second.tree?.note ?? null };
  }

  /** The checkpoint whose tree size (its position) is `size`, or the newest when it is not given. */
  private async checkpointOf(field: string, size: number | undefined): Promise<SignedCheckpoint> {
    if (size === undefined) {
      const latest = await this.reader.latestCheckpoint();
      if (latest === null) throw new InvalidProofRequestError(field, `${field}: the log has no checkpoint yet to prove against`);
      return latest;
    }
    const checkpoint = Number.isSafeInteger(size) && size >= 1 ? await this.reader.checkpointAt(size) : null;
    if (checkpoint === null)
      throw new InvalidProofRequestError(field, `${field} must be the tree size of a checkpoint (GET /admin/audit-logs/checkpoints)`);
    return checkpoint;
  }

  /** The signed root; for a checkpoint from before the tree, the root the tiles give at its size (signed by nobody). */
  private async rootOf(checkpoint: SignedCheckpoint): Promise<Hash> {
    if (checkpoint.tree !== null) return fromHex(checkpoint.tree.rootHash);
    return this.read(() => treeRootFromTiles(this.tree, this.hasher, checkpoint.position));
  }

  /** Tiles that do not hold what a proof needs were changed outside Bridle. */
  private async read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw error instanceof MissingTilesError ? new AuditTreeMismatchError() : error;
    }
  }
}
