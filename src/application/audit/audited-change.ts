import { DomainError } from '../../domain/shared/domain-error';
import { type AuditLog, type ToolAuditEntry, UNEXPECTED_ERROR } from './ports/audit-log.port';
import type { Clock } from '../shared/ports/clock.port';

/**
 * A change made outside the tools (an account's role, its tokens, its OAuth grants), audited
 * like a tool with a side effect: the pending row is committed before the change, so a crash
 * in between leaves a pending row, never a change nobody recorded. A domain refusal is
 * recorded as `rejected` with its code, anything else as `failed`; the error is rethrown.
 * @param change gets the time the change started; answers the row's result and its own value.
 */
export async function auditedChange<T>(
  ports: { readonly auditLog: AuditLog; readonly clock: Clock },
  entry: ToolAuditEntry,
  change: (now: Date) => Promise<{ result: unknown; value: T }>,
): Promise<T> {
  const started = ports.clock.now();
  const elapsed = () => Math.max(0, ports.clock.now().getTime() - started.getTime());
  const pendingSeq = await ports.auditLog.recordPending(entry);
  try {
    const { result, value } = await change(started);
    await ports.auditLog.recordOutcome(pendingSeq, entry, { status: 'succeeded', result, durationMs: elapsed() });
    return value;
  } catch (error) {
    const refusal = error instanceof DomainError ? error.code : null;
    // The change's own error is the one to report, even if recording it fails too.
    await ports.auditLog
      .recordOutcome(pendingSeq, entry, {
        status: refusal ? 'rejected' : 'failed',
        ...(refusal && error instanceof DomainError
          ? { errorCode: refusal, errorMessage: error.message }
          : { errorCode: 'INTERNAL', errorMessage: UNEXPECTED_ERROR }),
        durationMs: elapsed(),
      })
      .catch(() => undefined);
    throw error;
  }
}
