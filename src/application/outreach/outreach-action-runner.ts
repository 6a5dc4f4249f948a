import { Injectable } from '@nestjs/common';
import { withSentMessage } from '../../domain/outreach/actions';
import { ChannelError } from '../../domain/outreach/channel-errors';
import { idempotencyMaterial } from '../../domain/outreach/planning';
import { type ActionKind, MAX_TASK_ATTEMPTS, retryDelayMs, TASK_ACTION } from '../../domain/outreach/outreach-task';
import { describeBlock, type QuotaBlock, slotLimits, utcDay } from '../../domain/outreach/quota';
import { needsReview } from '../../domain/outreach/review';
import { AuditLog, type ToolAuditEntry } from '../agent/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { Logger } from '../shared/ports/logger.port';
import { Metrics } from '../shared/ports/metrics.port';
import { type Cycle, outcome } from './cycle';
import type { CycleCode, CycleOutcome, CycleStatus } from './cycle-outcome';
import { type ChannelAction, OutreachChannels } from './outreach-channels';
import { OutreachSettings } from './outreach-settings';
import { LinkedInChannel, SecretNotFoundError, SecretStore, type ChannelRecord } from './ports/channels.port';
import { OutreachDraftStore } from './ports/outreach-draft-store.port';
import {
  type ApprovedDraft,
  OutreachCycleStore,
  type ClaimedTask,
  type TaskCycleContext,
  type TaskRelease,
  type TaskReview,
} from './ports/outreach-cycle-store.port';

/** What the outcome shows of the proposal, its validation and the task. */
type Shown = {
  readonly proposed: CycleOutcome['proposal'];
  readonly validation: CycleOutcome['validation'];
  readonly view: (release: TaskRelease) => CycleOutcome['task'];
};

/** The task's lease ran out before `step`: nothing was done, and another cycle takes the task. */
function leaseLost(base: Pick<CycleOutcome, 'proposal' | 'validation'>, step: 'acting' | 'drafting'): CycleOutcome {
  return outcome({
    ...base,
    status: 'failed',
    code: 'LEASE_LOST',
    message: `The claim on this task expired before ${step}; nothing was done.`,
  });
}

/**
 * The acting step of a cycle, once a checked proposal is in hand: reserve the quota slot and
 * audit before acting, act through the channel with a deadline, verify, and record the
 * outcome with the task's release in one step. Never acts twice for one idempotency key.
 */
@Injectable()
export class OutreachActionRunner {
  private readonly logger: Logger;

  constructor(
    private readonly store: OutreachCycleStore,
    private readonly drafts: OutreachDraftStore,
    private readonly channels: OutreachChannels,
    private readonly linkedin: LinkedInChannel,
    private readonly secrets: SecretStore,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    logger: Logger,
  ) {
    this.logger = logger.withContext(OutreachActionRunner.name);
  }

  /** Fetches a fresh LinkedIn session from the secret store, audited before and after (the secret itself never). */
  async refreshSession(
    claim: ClaimedTask,
    secretName: string,
    audited: ToolAuditEntry,
    leave: (
      release: TaskRelease,
      result: { status: CycleStatus; code: CycleCode | null; message: string; execution: CycleOutcome['execution'] },
    ) => CycleOutcome,
  ): Promise<CycleOutcome> {
    const pendingSeq = await this.audit.recordPending(audited);
    const started = this.clock.now().getTime();
    try {
      await this.linkedin.useSession(await this.secrets.fetch(secretName));
    } catch (error) {
      if (!(error instanceof SecretNotFoundError)) throw error;
      const durationMs = this.clock.now().getTime() - started;
      await this.audit.recordOutcome(pendingSeq, audited, { status: 'failed', errorCode: 'SECRET_NOT_FOUND', durationMs });
      const giveUp = claim.attempts >= MAX_TASK_ATTEMPTS;
      return leave(
        giveUp
          ? { status: 'Failed', lastError: 'SECRET_NOT_FOUND' }
          : { status: 'Pending', nextRunAt: new Date(started + retryDelayMs(claim.attempts)), lastError: 'SECRET_NOT_FOUND' },
        {
          status: giveUp ? 'failed' : 'deferred',
          code: 'SECRET_NOT_FOUND',
          message: `There is no secret named ${secretName}.`,
          execution: { status: 'failed', idempotencyKey: null, durationMs, errorCode: 'SECRET_NOT_FOUND', result: null },
        },
      );
    }
    const durationMs = this.clock.now().getTime() - started;
    // The secret itself is never recorded.
    await this.audit.recordOutcome(pendingSeq, audited, { status: 'succeeded', result: { secretName, refreshed: true }, durationMs });
    return leave(
      { status: 'Pending', nextRunAt: this.clock.now(), lastError: null },
      {
        status: 'deferred',
        code: null,
        message: 'Fetched a fresh session; the task runs again next cycle.',
        execution: { status: 'succeeded', idempotencyKey: null, durationMs, errorCode: null, result: { secretName, refreshed: true } },
      },
    );
  }

  /** Reserve and audit, act with a deadline, verify, record: the heart of the controller. */
  async act(
    cycle: Cycle,
    claim: ClaimedTask,
    context: TaskCycleContext,
    proposal: ChannelAction,
    audited: ToolAuditEntry,
    shown: Shown,
    /**
     * A reviewed draft the owner approved, which runs as approved on the slot it holds since it
     * was drafted; or the task's review state, by which the campaign's policy may hold the action.
     */
    route: { readonly approved: ApprovedDraft } | { readonly review: TaskReview },
  ): Promise<CycleOutcome> {
    const now = cycle.started;
    const approved = 'approved' in route ? route.approved : undefined;
    const day = approved?.quotaDay ?? utcDay(now);
    const kind = TASK_ACTION[context.task.type].kind;
    if ('review' in route) {
      const held = await this.holdForReview(cycle, claim, context, proposal, audited, shown, kind, day, route.review);
      if (held) return held;
    }
    const begun = await this.store.begin({
      claim,
      decisionId: cycle.decisionId,
      proposal,
      kind,
      channel: this.channels.nameFor(proposal),
      // An approved draft keeps the attempt it was drafted in: one key, however often its approval is replayed.
      idempotencyMaterial: idempotencyMaterial(claim.taskId, approved?.attempt ?? claim.attempts, proposal),
      limits: slotLimits(context.quota, kind),
      day,
      now: this.clock.now(),
      leaseMs: this.settings.leaseMs,
      audit: audited,
      ...(approved ? { approvedDraftId: approved.id } : {}),
    });
    const base = { proposal: shown.proposed, validation: shown.validation };
    if (begun.status === 'lease_lost') return leaseLost(base, 'acting');
    if (begun.status === 'quota_exceeded') return this.quotaReachedMeanwhile(cycle, claim, audited, begun.block, shown, now);
    if (begun.status === 'duplicate') {
      await this.audit.record(audited, {
        status: 'rejected',
        errorCode: 'DUPLICATE_ACTION',
        result: { idempotencyKey: begun.idempotencyKey },
        durationMs: 0,
      });
      const release: TaskRelease = { status: 'Failed', lastError: 'DUPLICATE_ACTION' };
      cycle.settlement = { kind: 'release', claim, release, now: this.clock.now() };
      return outcome({
        ...base,
        status: 'failed',
        code: 'DUPLICATE_ACTION',
        message: 'This exact action was already taken.',
        task: shown.view(release),
      });
    }

    const { actionId, idempotencyKey, pendingSeq } = begun;
    const started = this.clock.now().getTime();
    const action = { actionId, pendingSeq, idempotencyKey, audited, started, day };
    // What the task shows as sent: an email with the unsubscribe footer its channel adds.
    const sent = this.channels.asSent(proposal, claim);
    let record: ChannelRecord | null = null;
    let failure: ChannelError | null = null;
    try {
      record = await this.channels.perform(proposal, idempotencyKey, AbortSignal.timeout(this.settings.actionTimeoutMs), claim);
    } catch (error) {
      this.logger.warn({
        msg: 'outreach action failed',
        decisionId: cycle.decisionId,
        action: proposal.action,
        idempotencyKey,
        err: error,
      });
      failure = error instanceof ChannelError ? error : new ChannelError('UNAVAILABLE', describe(error), 'maybe', { cause: error });
      if (failure.performed === 'maybe') {
        // It may have happened: ask the channel rather than guess, and never re-send.
        const found = await this.channels.lookup(proposal, idempotencyKey);
        if (found !== null && found !== 'unknowable') record = found;
        else if (found === 'unknowable') {
          return this.finishAction(cycle, claim, shown, base, action, {
            status: 'unknown',
            errorCode: failure.code,
            result: { error: failure.message },
            task: {
              status: 'Failed',
              lastError: 'UNKNOWN_OUTCOME',
              output: withSentMessage({ error: failure.message, review: 'the action may have happened' }, sent),
            },
            cycle: {
              status: 'unknown',
              code: 'CHANNEL_ERROR',
              message: `The ${proposal.action} may or may not have happened (${failure.code}); a person should review it.`,
            },
          });
        }
      }
    }

    if (!record) {
      const error = failure!;
      const retry = error.retryable && claim.attempts < MAX_TASK_ATTEMPTS;
      const nextRunAt =
        error.code === 'SESSION_EXPIRED' ? this.clock.now() : new Date(this.clock.now().getTime() + retryDelayMs(claim.attempts));
      return this.finishAction(cycle, claim, shown, base, action, {
        status: 'failed',
        errorCode: error.code,
        result: { error: error.message },
        refundQuota: true,
        task: retry
          ? { status: 'Pending', nextRunAt, lastError: error.code }
          : { status: 'Failed', lastError: error.code, output: { error: error.message } },
        cycle: {
          status: retry ? 'deferred' : 'failed',
          code: 'CHANNEL_ERROR',
          message: `${proposal.action} failed: ${error.code}. ${retry ? 'It will be tried again.' : 'The task is failed.'}`,
        },
      });
    }

    // After a failure, the record can only have come from the look-up by key.
    const verification = await this.channels.verify(proposal, idempotencyKey, record, failure !== null);
    return this.finishAction(
      cycle,
      claim,
      shown,
      base,
      action,
      verification.verified
        ? {
            status: 'succeeded',
            errorCode: null,
            result: verification.output,
            verification,
            task: { status: 'Completed', output: withSentMessage(verification.output, sent), lastError: null },
            cycle: { status: 'completed', code: null, message: `${proposal.action} done and verified: ${verification.detail}.` },
          }
        : {
            status: 'failed',
            errorCode: 'VERIFICATION_FAILED',
            result: { ...verification.output, detail: verification.detail },
            verification,
            task: {
              status: 'Failed',
              lastError: 'VERIFICATION_FAILED',
              output: withSentMessage({ ...verification.output, detail: verification.detail }, sent),
            },
            cycle: {
              status: 'failed',
              code: 'VERIFICATION_FAILED',
              message: `${proposal.action} could not be verified: ${verification.detail}.`,
            },
          },
    );
  }

  /**
   * Review before send: when the campaign's policy asks for it, the action is stored as a
   * draft bound to its arguments' hash, its quota slot held, audited, and the task parked
   * (AwaitingReview) until its owner decides. Nothing reaches a channel.
   * @returns the cycle's outcome when the action was held (or could not be), null when it runs now.
   */
  private async holdForReview(
    cycle: Cycle,
    claim: ClaimedTask,
    context: TaskCycleContext,
    proposal: ChannelAction,
    audited: ToolAuditEntry,
    shown: Shown,
    kind: ActionKind,
    day: string,
    review: TaskReview,
  ): Promise<CycleOutcome | null> {
    if (!needsReview(review.policy, review.approved)) return null;
    const now = this.clock.now();
    const held = await this.drafts.hold({
      claim,
      decisionId: cycle.decisionId,
      proposal,
      kind,
      limits: slotLimits(context.quota, kind),
      day,
      now,
      expiresAt: new Date(now.getTime() + this.settings.draftTtlHours * 3_600_000),
      audit: audited,
    });
    if (held.status === 'lease_lost') return leaseLost({ proposal: shown.proposed, validation: shown.validation }, 'drafting');
    if (held.status === 'quota_exceeded') return this.quotaReachedMeanwhile(cycle, claim, audited, held.block, shown, cycle.started);
    return outcome({
      proposal: shown.proposed,
      validation: shown.validation,
      status: 'awaiting_review',
      code: 'AWAITING_REVIEW',
      message: `${proposal.action} is held as draft ${held.draftId} for review until ${held.expiresAt.toISOString()}; nothing was sent.`,
      task: shown.view({ status: 'AwaitingReview' }),
      review: { draftId: held.draftId, argumentsHash: held.argumentsHash, expiresAt: held.expiresAt },
    });
  }

  /** The slot was taken meanwhile (the context check saw room): audited, and the task waits for the limit's next slot. */
  private async quotaReachedMeanwhile(
    cycle: Cycle,
    claim: ClaimedTask,
    audited: ToolAuditEntry,
    block: QuotaBlock,
    shown: Shown,
    now: Date,
  ): Promise<CycleOutcome> {
    await this.audit.record(audited, { status: 'rejected', errorCode: 'QUOTA_EXCEEDED', result: quotaResult(block), durationMs: 0 });
    const { release } = await this.deferForQuota(claim, block, now);
    cycle.settlement = { kind: 'release', claim, release, now: this.clock.now() };
    return outcome({
      proposal: shown.proposed,
      validation: shown.validation,
      status: 'deferred',
      code: 'QUOTA_EXCEEDED',
      message: `Quota reached meanwhile: ${describeBlock(block)}.`,
      task: shown.view(release),
    });
  }

  /**
   * A limit stops `block.kind` in `block.scope` (its day or its rolling week): counts the
   * rejection and moves every waiting task of that kind in that scope to when the limit's
   * next slot frees (the next UTC midnight for a day; for a week, when its oldest counted
   * day leaves it). @returns where this task goes, and how many others were moved.
   */
  async deferForQuota(claim: ClaimedTask, block: QuotaBlock, now: Date): Promise<{ release: TaskRelease; deferred: number }> {
    const { kind, scope, window, until } = block;
    this.metrics.quotaRejection(kind, scope, window);
    const deferred = await this.store.deferKind({ ownerId: claim.ownerId, campaignId: claim.campaignId, scope, kind, until, now });
    return { release: { status: 'Pending', nextRunAt: until, lastError: 'QUOTA_EXCEEDED' }, deferred };
  }

  /**
   * Settles the action: its outcome, its audit row and the task's release, written when the
   * cycle ends, with its decision row (Cycle.settlement).
   */
  private finishAction(
    cycle: Cycle,
    claim: ClaimedTask,
    shown: { view: (release: TaskRelease) => CycleOutcome['task'] },
    base: Pick<CycleOutcome, 'proposal' | 'validation'>,
    action: { actionId: string; pendingSeq: number; idempotencyKey: string; audited: ToolAuditEntry; started: number; day: string },
    result: {
      status: 'succeeded' | 'failed' | 'unknown';
      /** It certainly did not happen: its quota slot is given back. */
      refundQuota?: true;
      errorCode: string | null;
      result: unknown;
      verification?: { verified: boolean; detail: string };
      task: TaskRelease;
      cycle: { status: CycleStatus; code: CycleCode | null; message: string };
    },
  ): CycleOutcome {
    const now = this.clock.now();
    const durationMs = now.getTime() - action.started;
    this.metrics.toolCall(action.audited.tool, result.status, durationMs / 1000);
    cycle.settlement = {
      kind: 'action',
      action: {
        actionId: action.actionId,
        taskId: claim.taskId,
        pendingSeq: action.pendingSeq,
        audit: action.audited,
        outcome: { status: result.status, result: result.result, errorCode: result.errorCode ?? undefined, durationMs },
        task: result.task,
        refundQuota: result.refundQuota ? { day: action.day } : null,
        now,
      },
    };
    return outcome({
      ...base,
      ...result.cycle,
      task: shown.view(result.task),
      execution: {
        status: result.status,
        idempotencyKey: action.idempotencyKey,
        durationMs,
        errorCode: result.errorCode,
        result: result.result,
      },
      verification: result.verification ? { verified: result.verification.verified, detail: result.verification.detail } : null,
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a quota refusal's audit row records: which limit, and until when. */
export function quotaResult(block: QuotaBlock): Record<string, unknown> {
  return { scope: block.scope, window: block.window, limit: block.limit, used: block.used, until: block.until.toISOString() };
}
