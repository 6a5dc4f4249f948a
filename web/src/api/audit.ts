/** The audit log and its decisions, for admins. */
import type {
  AuditRowDto,
  AuditRowPageDto,
  ChainVerificationDto,
  DecisionLogDetailDto,
  ExportAuditRowsData,
  GetDecisionData,
  GetDecisionResponse,
  ListAuditRowsData,
  ListAuditRowsResponse,
  VerifyAuditChainData,
  VerifyAuditChainResponse,
} from '../generated/types.gen';
import { every, json, send, type Session, url } from './http';

export type AuditRow = AuditRowDto;
export type Decision = DecisionLogDetailDto;
export type ChainVerification = ChainVerificationDto;
/** The filters of GET /admin/audit-logs, without its paging. */
export type AuditFilter = Omit<NonNullable<ListAuditRowsData['query']>, 'limit' | 'cursor'>;
export const AUDIT_SOURCES = every<AuditRow['source']>()(['chat', 'mcp', 'outreach', 'admin', 'account', 'api']);
export const AUDIT_STATUSES = every<NonNullable<AuditFilter['status']>>()([
  'pending',
  'succeeded',
  'failed',
  'rejected',
  'unknown',
  'confirmation_required',
]);

/** One page of audit rows, newest first; pass `nextCursor` back for the older ones. */
export async function listAuditRows(session: Session, filter: AuditFilter, cursor: string | null): Promise<AuditRowPageDto> {
  const path = url<ListAuditRowsData>('/admin/audit-logs', { query: { ...filter, limit: 25, cursor: cursor ?? undefined } });
  return json<ListAuditRowsResponse>('GET', path, session);
}

/** Every row `filter` selects (not just the pages shown), oldest first, as NDJSON: one AuditRow a line. */
export async function exportAuditRows(session: Session, filter: AuditFilter): Promise<Blob> {
  return (await send('GET', url<ExportAuditRowsData>('/admin/audit-logs/export', { query: filter }), session)).blob();
}

export async function getDecision(session: Session, id: string): Promise<Decision> {
  return json<GetDecisionResponse>('GET', url<GetDecisionData>('/admin/decisions/{id}', { path: { id } }), session);
}

export async function verifyAuditChain(session: Session): Promise<ChainVerification> {
  return json<VerifyAuditChainResponse>('GET', url<VerifyAuditChainData>('/admin/audit-logs/verify', {}), session);
}
