/** The person's own audited actions, and a receipt for any one of them (docs/audit-log.md#receipts). */
import type { GetOwnAuditReceiptData, ListOwnAuditRowsData, ListOwnAuditRowsResponse, OwnAuditRowDto } from '../generated/types.gen';
import { json, send, type Session, url } from './http';

export type OwnAuditRow = OwnAuditRowDto;
export interface OwnAuditRowPage {
  readonly items: OwnAuditRow[];
  readonly nextCursor: string | null;
}

/** The code of the 409 a receipt gets while no signed checkpoint covers its row yet. */
export const RECEIPT_NOT_YET = 'AUDIT.RECEIPT_NOT_YET';

/** One page of the person's audited actions, newest first; pass `nextCursor` back for the older ones. */
export async function listOwnAuditRows(session: Session, cursor: string | null, limit = 25): Promise<OwnAuditRowPage> {
  const path = url<ListOwnAuditRowsData>('/api/{userId}/audit/receipts', {
    path: { userId: session.userId },
    query: { limit, cursor: cursor ?? undefined },
  });
  return json<ListOwnAuditRowsResponse>('GET', path, session);
}

/**
 * The row's `bridle-receipt/v1` document with its personal fields (what opens the commitment),
 * as the server wrote it: the file the person keeps and the verifier reads. A row no
 * checkpoint covers yet is an ApiError with code RECEIPT_NOT_YET and the server's sentence.
 */
export async function downloadOwnReceipt(session: Session, seq: number): Promise<Blob> {
  const path = url<GetOwnAuditReceiptData>('/api/{userId}/audit/receipts/{seq}', {
    path: { userId: session.userId, seq },
    query: { personal: 'true' },
  });
  return (await send('GET', path, session)).blob();
}
