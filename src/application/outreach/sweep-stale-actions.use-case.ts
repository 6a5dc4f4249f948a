import { Injectable } from '@nestjs/common';
import { withSentMessage } from '../../domain/outreach/actions';
import type { ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { OutreachChannels } from './outreach-channels';
import { OutreachSettings } from './outreach-settings';
import { OutreachCycleStore, type StaleAction } from './ports/outreach-cycle-store.port';
import { OutreachDraftStore } from './ports/outreach-draft-store.port';
import { Logger } from '../shared/ports/logger.port';

export interface SweepReport {
  readonly checked: number;
  /** Found by their key at the channel and verified: the task is Completed. */
  readonly confirmed: number;
  /** Not provably done: recorded `unknown`, the task Failed, for a person to review. */
  readonly unknown: number;
  /** Drafts held for review past their expiry (or approved for a task that ended): slot given back. */
  readonly expiredDrafts: number;
  /** Drafts past their expiry whose policy rule escalates: handed to the admins, still awaiting review. */
  readonly escalatedDrafts: number;
  /** Decision rows of cycles whose worker died, left pending: marked `interrupted`. */
  readonly interruptedDecisions: number;
}

const BATCH = 50;

/**
 * Settles actions left in flight past their lease (their worker died or stalled): the
 * channel is asked whether the action with that key happened. Nothing is ever re-sent,
 * and the quota slot stays taken. Then closes the decision rows such workers left pending:
 * a live cycle holds its task's lease, so a row opened more than two leases ago is a
 * leftover (the second lease covers a cycle's last statements on a busy database, and
 * clocks that differ between servers).
 */
@Injectable()
export class SweepStaleActionsUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: OutreachCycleStore,
    private readonly drafts: OutreachDraftStore,
    private readonly channels: OutreachChannels,
    private readonly settings: OutreachSettings,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext(SweepStaleActionsUseCase.name);
  }

  async run(): Promise<SweepReport> {
    let checked = 0;
    let confirmed = 0;
    for (;;) {
      const stale = await this.store.claimStaleActions({ now: this.clock.now(), leaseMs: this.settings.leaseMs, limit: BATCH });
      for (const action of stale) {
        if (await this.settle(action)) confirmed++;
      }
      checked += stale.length;
      if (stale.length < BATCH) break;
    }
    if (checked > 0) this.logger.warn({ msg: 'swept actions left in flight', checked, confirmed, unknown: checked - confirmed });
    // Drafts nobody decided in time: their slot is given back and their task drafts again (or is
    // cancelled, as the rule that held it says); or, when their rule escalates, the admins may decide them.
    let expiredDrafts = 0;
    let escalatedDrafts = 0;
    for (;;) {
      const report = await this.drafts.expire(this.clock.now(), BATCH);
      expiredDrafts += report.expired + report.voided;
      escalatedDrafts += report.escalated;
      if (report.expired + report.voided < BATCH && report.escalated < BATCH) break;
    }
    if (expiredDrafts > 0) this.logger.info({ msg: 'expired drafts held for review', expiredDrafts });
    if (escalatedDrafts > 0) this.logger.info({ msg: 'escalated drafts to the admins', escalatedDrafts });
    const openedBefore = new Date(this.clock.now().getTime() - 2 * this.settings.leaseMs);
    let interruptedDecisions = 0;
    for (;;) {
      const closed = await this.store.closeAbandonedDecisions({ openedBefore, limit: BATCH });
      interruptedDecisions += closed;
      if (closed < BATCH) break;
    }
    if (interruptedDecisions > 0)
      this.logger.warn({ msg: 'closed decisions of cycles cut off before they finished', interruptedDecisions });
    return { checked, confirmed, unknown: checked - confirmed, expiredDrafts, escalatedDrafts, interruptedDecisions };
  }

  /** @returns whether the action is confirmed done. */
  private async settle(action: StaleAction): Promise<boolean> {
    const { proposal } = action;
    if (!this.channels.isChannelAction(proposal)) return false;
    const audit: ToolAuditEntry = {
      source: 'outreach',
      actorId: action.ownerId,
      campaignId: action.campaignId,
      outreachTaskId: action.taskId,
      decisionId: action.decisionId,
      tool: proposal.action,
      arguments: proposal.args,
      securityEvents: [],
    };
    // What the task shows as sent: an email with the unsubscribe footer its channel was given.
    const sent = this.channels.asSent(proposal, action);
    const found = await this.channels.lookup(proposal, action.idempotencyKey);
    const verification = found && found !== 'unknowable' ? await this.channels.verify(proposal, action.idempotencyKey, found, true) : null;
    const now = this.clock.now();
    if (verification?.verified) {
      await this.store.finish({
        actionId: action.actionId,
        taskId: action.taskId,
        pendingSeq: action.pendingSeq,
        audit,
        outcome: { status: 'succeeded', result: { ...verification.output, sweptAfterLease: true }, durationMs: 0 },
        task: { status: 'Completed', output: withSentMessage(verification.output, sent), lastError: null },
        refundQuota: null,
        now,
      });
      return true;
    }
    const why =
      found === 'unknowable'
        ? 'the channel cannot be asked by key'
        : found === null
          ? 'the channel has no record of the key'
          : verification!.detail;
    await this.store.finish({
      actionId: action.actionId,
      taskId: action.taskId,
      pendingSeq: action.pendingSeq,
      audit,
      outcome: {
        status: 'unknown',
        errorCode: 'UNKNOWN_OUTCOME',
        errorMessage: `The action may or may not have happened (${why}); a person should review it.`,
        result: { detail: why, review: true },
        durationMs: 0,
      },
      task: {
        status: 'Failed',
        lastError: 'UNKNOWN_OUTCOME',
        output: withSentMessage({ detail: why, review: 'the action may have happened; check before retrying' }, sent),
      },
      // Even with no record of the key, the stalled request may still land: its slot stays used.
      refundQuota: null,
      now,
    });
    return false;
  }
}
