import { Injectable } from '@nestjs/common';
import { AuditReceiptNotYetError, AuditRowNotFoundError, InvalidProofRequestError } from '../../domain/audit/audit-errors';
import { toDigestLine } from '../../domain/audit/checkpoint';
import { LEAF_RULE, LINK_RULE, PERSONAL_RULE, type Receipt, RECEIPT_FORMAT } from '../../domain/audit/receipt';
import { AdminReadRecorder } from './admin-read-recorder';
import { AuditProofsUseCase } from './audit-proofs.use-case';
import { AuditEvidence, type LinkedRowEvidence, type RowEvidence } from './ports/audit-evidence.port';
import { AuditReader } from './ports/audit-reader.port';

export interface ReceiptRequest {
  readonly seq: number;
  /** A checkpoint's tree size to prove against; the newest checkpoint by default. */
  readonly treeSize?: number;
}

/**
 * Receipts (docs/audit-log.md#receipts): one audit row's public fields, its link, its leaf, the
 * inclusion proof and the signed checkpoint it is proven against, as one JSON document anyone
 * checks with the public key alone. A person gets receipts of their own rows (as actor; any
 * other row is "not found", never "forbidden") and may ask for the salt and personal fields
 * that open the row's commitment; an admin gets any row's, without them. Both are audited.
 */
@Injectable()
export class AuditReceiptsUseCase {
  constructor(
    private readonly evidence: AuditEvidence,
    private readonly reader: AuditReader,
    private readonly proofs: AuditProofsUseCase,
    private readonly recorder: AdminReadRecorder,
  ) {}

  forPerson(input: ReceiptRequest & { readonly userId: string; readonly personal: boolean }): Promise<Receipt> {
    return this.recorder.around(
      {
        adminId: input.userId,
        source: 'account',
        tool: 'account.audit_receipt',
        arguments: { seq: input.seq, treeSize: input.treeSize, personal: input.personal },
      },
      async () => {
        const row = await this.evidence.row(input.seq, true);
        if (row === null || row.actorId !== input.userId) throw new AuditRowNotFoundError();
        return this.receipt(row, input.treeSize, input.personal);
      },
      summary,
    );
  }

  forAdmin(input: ReceiptRequest & { readonly adminId: string }): Promise<Receipt> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.audit_logs.receipt', arguments: { seq: input.seq, treeSize: input.treeSize } },
      async () => {
        const row = await this.evidence.row(input.seq, true);
        if (row === null) throw new AuditRowNotFoundError();
        return this.receipt(row, input.treeSize, false);
      },
      summary,
    );
  }

  private async receipt(row: RowEvidence, treeSize: number | undefined, personal: boolean): Promise<Receipt> {
    const link = await this.covered(row);
    if (treeSize !== undefined && treeSize < link.position)
      throw new InvalidProofRequestError('treeSize', `treeSize must be a checkpoint's size from the row's position, ${link.position}`);
    const proof = await this.proofs.inclusion(link.position, treeSize);
    const checkpoint = await this.reader.checkpointAt(proof.treeSize);
    if (checkpoint === null) throw new AuditReceiptNotYetError({ position: link.position, latestCheckpoint: null });
    if (link.form === 'pruned') throw new AuditRowNotFoundError();
    return {
      format: RECEIPT_FORMAT,
      seq: row.seq,
      form: link.form,
      canonical: link.canonical,
      row: link.canonical === null ? null : (JSON.parse(link.canonical) as Record<string, unknown>),
      erased: link.erasedAt === null ? null : { at: link.erasedAt.toISOString(), by: link.erasedBy },
      link: { position: link.position, prevHash: link.prevHash, hash: link.hash, rule: LINK_RULE },
      leaf: { index: proof.leafIndex, hash: proof.leafHash, rule: LEAF_RULE },
      inclusion: { treeSize: proof.treeSize, proof: proof.proof },
      checkpoint: toDigestLine(checkpoint),
      ...(personal && row.opening !== null && { personal: opened(row.opening.salt, row.opening.text) }),
    };
  }

  /** The row's link, when the newest checkpoint (with a signed note) covers it; a treeSize below it is a 400 from the proof. */
  private async covered(row: RowEvidence): Promise<LinkedRowEvidence> {
    const latest = await this.reader.latestCheckpoint();
    const position = row.link?.position ?? null;
    if (row.link === null || latest === null || latest.position < row.link.position || latest.tree === null)
      throw new AuditReceiptNotYetError({ position, latestCheckpoint: latest?.position ?? null });
    return row.link;
  }
}

function opened(salt: string, text: string): NonNullable<Receipt['personal']> {
  const fields = JSON.parse(text) as { arguments: unknown; result: unknown; errorMessage: unknown };
  return { salt, text, arguments: fields.arguments, result: fields.result, errorMessage: fields.errorMessage, rule: PERSONAL_RULE };
}

const summary = (receipt: Receipt) => ({ position: receipt.link.position, treeSize: receipt.inclusion.treeSize });
