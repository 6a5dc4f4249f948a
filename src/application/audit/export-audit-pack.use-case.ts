import { Injectable } from '@nestjs/common';
import { InvalidProofRequestError } from '../../domain/audit/audit-errors';
import { type DigestLine, toDigestLine } from '../../domain/audit/checkpoint';
import { MerkleHasher, rootSubtrees } from '../../domain/audit/merkle';
import { LEAF_RULE, LINK_RULE, PACK_FORMAT, type PackManifest, type PackRow } from '../../domain/audit/receipt';
import { toBase64 } from '../../domain/audit/signed-note';
import { Clock } from '../shared/ports/clock.port';
import { consistencyProofFromTiles, subtreeHashes } from './audit-tree-reads';
import { AuditEvidence, type LinkedRowEvidence } from './ports/audit-evidence.port';
import { AuditReader } from './ports/audit-reader.port';
import { AuditTree } from './ports/audit-tree.port';

const GENESIS_HASH = '0'.repeat(64);

/** An export pack (docs/audit-log.md#export-pack): its manifest, its rows (streamed) and every checkpoint. */
export interface AuditPack {
  readonly manifest: PackManifest;
  readonly rows: AsyncIterable<PackRow>;
  readonly checkpoints: readonly DigestLine[];
}

/**
 * The operator's export of a range of the chain for an auditor, who checks it offline with the
 * public key alone (`verifier/bridle-audit-verify.mjs`): the rows' links and canonical texts
 * (no personal data: committed rows carry their commitment; rows from before commitments only
 * their link), every checkpoint, the hashes of the tree left of the range, and a consistency
 * proof that signs the range's tail.
 */
@Injectable()
export class ExportAuditPackUseCase {
  constructor(
    private readonly evidence: AuditEvidence,
    private readonly reader: AuditReader,
    private readonly tree: AuditTree,
    private readonly hasher: MerkleHasher,
    private readonly clock: Clock,
  ) {}

  /** From position `from` (1 by default) to `to` (the newest checkpoint's by default, else the head). */
  async execute(input: { from?: number; to?: number }): Promise<AuditPack> {
    const head = await this.evidence.head();
    const checkpoints: DigestLine[] = [];
    for await (const checkpoint of this.reader.checkpoints()) checkpoints.push(toDigestLine(checkpoint));
    const from = input.from ?? 1;
    const to = input.to ?? checkpoints.at(-1)?.position ?? head;
    if (!Number.isSafeInteger(from) || from < 1 || from > head)
      throw new InvalidProofRequestError('from', `from must be a chain position from 1 to the head, ${head}`);
    if (!Number.isSafeInteger(to) || to < from || to > head)
      throw new InvalidProofRequestError('to', `to must be a chain position from ${from} to the head, ${head}`);
    const manifest: PackManifest = {
      format: PACK_FORMAT,
      exportedAt: this.clock.now().toISOString(),
      from,
      to,
      head,
      prevHash: from === 1 ? GENESIS_HASH : await this.linkHash(from - 1),
      leftSubtrees: await this.leftSubtrees(from - 1),
      prunedBefore: (await this.reader.prunedBefore())?.position ?? null,
      tail: await this.tail(to, checkpoints),
      rules: { link: LINK_RULE, leaf: LEAF_RULE },
    };
    return { manifest, rows: this.rows(from, to), checkpoints };
  }

  private async *rows(from: number, to: number): AsyncIterable<PackRow> {
    for await (const link of this.evidence.range(from, to)) yield packRow(link);
  }

  private async linkHash(position: number): Promise<string> {
    const link = (await this.reader.linksAt([position])).get(position);
    if (link === undefined) throw new InvalidProofRequestError('from', `the chain has no link at position ${position}`);
    return link.hash;
  }

  /** The complete subtrees of the first `size` leaves, from the tiles: the auditor's tree starts from them. */
  private async leftSubtrees(size: number): Promise<string[]> {
    if (size === 0) return [];
    const subtrees = rootSubtrees(size);
    const hashes = await subtreeHashes(this.tree, this.hasher, subtrees);
    return subtrees.map((subtree) => toBase64(hashes(subtree)));
  }

  /** When `to` is no checkpoint's size: the proof that the tree of `to` leaves is a prefix of the next signed one. */
  private async tail(to: number, checkpoints: readonly DigestLine[]): Promise<PackManifest['tail']> {
    if (checkpoints.some((checkpoint) => checkpoint.position === to && checkpoint.note !== undefined)) return null;
    const next = checkpoints.find((checkpoint) => checkpoint.position > to && checkpoint.note !== undefined);
    if (next === undefined) return null;
    const proof = await consistencyProofFromTiles(this.tree, this.hasher, to, next.position);
    return { treeSize: next.position, proof: proof.map(toBase64) };
  }
}

function packRow(link: LinkedRowEvidence): PackRow {
  return {
    position: link.position,
    seq: link.seq,
    prevHash: link.prevHash,
    hash: link.hash,
    form: link.form,
    ...(link.form === 'committed' && link.canonical !== null && { canonical: link.canonical }),
    ...(link.erasedAt !== null && { erasedAt: link.erasedAt.toISOString(), erasedBy: link.erasedBy }),
  };
}
