import { Injectable } from '@nestjs/common';
import { describeBlock, type QuotaBlock } from '../../domain/outreach/quota';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { Metrics } from '../shared/ports/metrics.port';
import { leave, type Shown, type StepEnd, type TaskScope } from './cycle';
import { type ClaimedTask, OutreachCycleStore, type TaskRelease } from './ports/outreach-cycle-store.port';

/** What a quota refusal's audit row records: which limit, and until when. */
export function quotaResult(block: QuotaBlock): Record<string, unknown> {
  return { scope: block.scope, window: block.window, limit: block.limit, used: block.used, until: block.until.toISOString() };
}

/** A limit that stops a task: the task, and every waiting task of its kind in the limit's scope, wait for its next slot. */
@Injectable()
export class QuotaDeferral {
  constructor(
    private readonly store: OutreachCycleStore,
    private readonly audit: AuditLog,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {}

  /**
   * A limit stops `block.kind` in `block.scope` (its day or its rolling week): counts the
   * rejection and moves every waiting task of that kind in that scope to when the limit's
   * next slot frees (the next UTC midnight for a day; for a week, when its oldest counted
   * day leaves it). @returns where this task goes, and how many others were moved.
   */
  async defer(claim: ClaimedTask, block: QuotaBlock, now: Date): Promise<{ release: TaskRelease; deferred: number }> {
    const { kind, scope, window, until } = block;
    this.metrics.quotaRejection(kind, scope, window);
    const deferred = await this.store.deferKind({ ownerId: claim.ownerId, campaignId: claim.campaignId, scope, kind, until, now });
    return { release: { status: 'Pending', nextRunAt: until, lastError: 'QUOTA_EXCEEDED' }, deferred };
  }

  /** The slot was taken meanwhile (the context check saw room): audited, and the task waits for the limit's next slot. */
  async reachedMeanwhile(task: TaskScope, audited: ToolAuditEntry, block: QuotaBlock, shown: Shown): Promise<StepEnd> {
    const message = `Quota reached meanwhile: ${describeBlock(block)}.`;
    await this.audit.record(audited, {
      status: 'rejected',
      errorCode: 'QUOTA_EXCEEDED',
      errorMessage: message,
      result: quotaResult(block),
      durationMs: 0,
    });
    const { release } = await this.defer(task.claim, block, task.started);
    return leave(task, release, this.clock.now(), { ...shown, status: 'deferred', code: 'QUOTA_EXCEEDED', message });
  }
}
