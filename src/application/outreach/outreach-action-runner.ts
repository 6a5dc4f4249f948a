import { Injectable } from '@nestjs/common';
import { actionTargets, withSentMessage } from '../../domain/outreach/actions';
import { ChannelError } from '../../domain/outreach/channel-errors';
import { idempotencyMaterial } from '../../domain/outreach/planning';
import { MAX_TASK_ATTEMPTS, retryDelayMs } from '../../domain/outreach/outreach-task';
import { slotLimits, utcDay } from '../../domain/outreach/quota';
import { needsReview } from '../../domain/outreach/review';
import { enforcement, type PolicyDoor } from '../../domain/policy/enforcement';
import { type PolicyObligations, verdictOf } from '../../domain/policy/policy';
import { overLimit, type PolicyRefusal } from '../../domain/policy/policy-refusal';
import { PolicyGate } from '../policy/policy-gate';
import type { LimitReached } from '../policy/ports/policy-counters.port';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { Logger } from '../shared/ports/logger.port';
import { Metrics } from '../shared/ports/metrics.port';
import { auditEntry, leave, leaseLost, outcome, type Shown, type StepEnd, type TaskScope, taskView } from './cycle';
import type { CycleStatus } from '../../domain/outreach/cycle-status';
import type { CycleCode } from './cycle-outcome';
import { type ChannelAction, OutreachChannels, type Verification } from './outreach-channels';
import { QuotaDeferral } from './outreach-quota-deferral';
import { ReviewHold } from './outreach-review-hold';
import { type RefreshSession, SessionRefresh } from './outreach-session-refresh';
import { OutreachSettings } from './outreach-settings';
import type { ChannelRecord } from './ports/channels.port';
import { type ApprovedDraft, OutreachCycleStore, type TaskRelease, type TaskReview } from './ports/outreach-cycle-store.port';

/**
 * How an action is routed: a reviewed draft the owner approved, which runs as approved on the
 * slot it holds since it was drafted; or the task's review state, by which the campaign's
 * policy may hold the action.
 */
export type ActRoute = { readonly approved: ApprovedDraft } | { readonly review: TaskReview };

/** Outreach as a door: nobody is at the call to be asked; a review queue holds it, or a reviewer approved it. */
interface OutreachDoor extends PolicyDoor {
  readonly person: 'nobody';
  readonly reviewer: 'holds' | 'agreed';
}

/** An action begun: its pending audit row and key, when it started, and the day its slot was taken on. */
interface Begun {
  readonly proposal: ChannelAction;
  readonly actionId: string;
  readonly pendingSeq: number;
  readonly idempotencyKey: string;
  readonly audited: ToolAuditEntry;
  readonly started: number;
  readonly day: string;
}

/** What the channel did: a record to verify (found by its key after a failure, or not), a failure, or nobody can tell. */
type Effect =
  | { readonly kind: 'record'; readonly record: ChannelRecord; readonly foundByKey: boolean }
  | { readonly kind: 'failed'; readonly failure: ChannelError }
  | { readonly kind: 'unknown'; readonly failure: ChannelError };

/** How an action ends: its audit outcome, the task's release, and what the cycle answers. */
interface Settled {
  readonly status: 'succeeded' | 'failed' | 'unknown';
  /** It certainly did not happen: its quota slot is given back. */
  readonly refundQuota?: true;
  readonly errorCode: string | null;
  readonly result: unknown;
  readonly verification?: Verification;
  readonly task: TaskRelease;
  readonly cycle: { readonly status: CycleStatus; readonly code: CycleCode | null; readonly message: string };
}

/**
 * The acting step of a cycle, once a checked proposal is in hand: reserve the quota slot and
 * audit before acting, act through the channel with a deadline, verify, and settle the
 * outcome with the task's release (written with the cycle's decision row). Never acts twice
 * for one idempotency key.
 */
@Injectable()
export class OutreachActionRunner {
  private readonly logger: Logger;

  constructor(
    private readonly store: OutreachCycleStore,
    private readonly channels: OutreachChannels,
    private readonly quota: QuotaDeferral,
    private readonly review: ReviewHold,
    private readonly session: SessionRefresh,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    logger: Logger,
    private readonly policy: PolicyGate,
  ) {
    this.logger = logger.withContext(OutreachActionRunner.name);
  }

  /** Fetches a fresh LinkedIn session from the secret store, audited before and after (the secret itself never). */
  refreshSession(task: TaskScope, proposal: RefreshSession, shown: Shown): Promise<StepEnd> {
    return this.session.refresh(task, proposal, shown);
  }

  /**
   * Ask the policy in force (docs/policies.md), hold for review, or reserve and audit, act with
   * a deadline, verify, settle: the heart of the controller.
   */
  async act(task: TaskScope, proposal: ChannelAction, shown: Shown, route: ActRoute): Promise<StepEnd> {
    const approved = 'approved' in route ? route.approved : undefined;
    const day = approved?.quotaDay ?? utcDay(task.started);
    const { kind } = this.channels.actions.taskAction(task.context.task.type);
    if (!this.channels.channelFor(this.channels.kindOf(proposal))) return this.noChannel(task, proposal, shown);
    const targets = actionTargets(proposal.action, proposal.args);
    const decision = await this.policy.decide(proposal.action, targets, { userId: task.ownerId, source: 'outreach' });
    const audited: ToolAuditEntry = { ...auditEntry(task, proposal.action, proposal.args), policy: verdictOf(decision) };
    // A draft its reviewer approved has had the review a rule asks for.
    const door: OutreachDoor = { person: 'nobody', reviewer: approved ? 'agreed' : 'holds' };
    const enforced = enforcement(decision, door);
    let obligations: PolicyObligations;
    switch (enforced.kind) {
      case 'refuse':
        return this.denied(task, audited, enforced.refusal, shown);
      case 'hold-for-reviewer':
        return this.review.hold(task, proposal, audited, shown, kind, day, enforced.reviewer);
      case 'run':
        // The campaign's own review mode holds its messages whatever the policy.
        if ('review' in route && needsReview(route.review.policy, route.review.approved)) {
          return this.review.hold(task, proposal, audited, shown, kind, day);
        }
        obligations = enforced.obligations;
        break;
      default: {
        const unknown: never = enforced;
        return unknown;
      }
    }
    const reached = await this.policy.take(obligations);
    if (reached) return this.overLimit(task, { ...audited, policy: verdictOf(decision, reached.limit) }, decision.version, reached, shown);
    const begun = await this.store.begin({
      claim: task.claim,
      decisionId: task.decisionId,
      proposal,
      kind,
      channel: this.channels.nameFor(proposal),
      // An approved draft keeps the attempt it was drafted in: one key, however often its approval is replayed.
      idempotencyMaterial: idempotencyMaterial(task.taskId, approved?.attempt ?? task.claim.attempts, proposal),
      limits: slotLimits(task.context.quota, kind),
      day,
      now: this.clock.now(),
      leaseMs: this.settings.leaseMs,
      audit: audited,
      ...(approved ? { approvedDraftId: approved.id } : {}),
    });
    if (begun.status === 'lease_lost') return leaseLost(shown, 'acting');
    if (begun.status === 'quota_exceeded') return this.quota.reachedMeanwhile(task, audited, begun.block, shown);
    if (begun.status === 'duplicate') return this.duplicate(task, audited, begun.idempotencyKey, shown);
    const action: Begun = { ...begun, proposal, audited, started: this.clock.now().getTime(), day };
    const effect = await this.perform(task, action);
    return this.finish(task, shown, action, await this.settle(task, action, effect));
  }

  /** No channel performs the action's kind: refused before anything is reserved or sent, and the task is failed. */
  private async noChannel(task: TaskScope, proposal: ChannelAction, shown: Shown): Promise<StepEnd> {
    const message = `No channel performs ${this.channels.kindOf(proposal)} actions, so ${proposal.action} was not sent.`;
    await this.audit.record(auditEntry(task, proposal.action, proposal.args), {
      status: 'rejected',
      errorCode: 'NO_CHANNEL',
      errorMessage: message,
      durationMs: 0,
    });
    return leave(task, { status: 'Failed', lastError: 'NO_CHANNEL', output: { error: message } }, this.clock.now(), {
      ...shown,
      status: 'failed',
      code: 'NO_CHANNEL',
      message,
    });
  }

  /** A rule of the policy refuses the action: nothing is sent, and the task is cancelled with the rule's reason. */
  private async denied(task: TaskScope, audited: ToolAuditEntry, refusal: PolicyRefusal, shown: Shown): Promise<StepEnd> {
    await this.audit.record(audited, { status: 'rejected', errorCode: refusal.code, errorMessage: refusal.message, durationMs: 0 });
    return leave(task, { status: 'Cancelled', lastError: refusal.code, output: { error: refusal.message } }, this.clock.now(), {
      ...shown,
      status: 'failed',
      code: refusal.code,
      message: refusal.message,
    });
  }

  /** A limit of the policy is reached: nothing is sent, and the task waits until the limit's window ends. */
  private async overLimit(
    task: TaskScope,
    audited: ToolAuditEntry,
    version: number,
    reached: LimitReached,
    shown: Shown,
  ): Promise<StepEnd> {
    const refusal = overLimit(version, reached.limit, reached.retryAfterSeconds);
    await this.audit.record(audited, { status: 'rejected', errorCode: refusal.code, errorMessage: refusal.message, durationMs: 0 });
    const now = this.clock.now();
    const nextRunAt = new Date(now.getTime() + Math.max(1, reached.retryAfterSeconds) * 1000);
    return leave(task, { status: 'Pending', nextRunAt, lastError: refusal.code }, now, {
      ...shown,
      status: 'deferred',
      code: refusal.code,
      message: refusal.message,
    });
  }

  /** The store already holds an action with this key: it is not taken again, and the task is failed. */
  private async duplicate(task: TaskScope, audited: ToolAuditEntry, idempotencyKey: string, shown: Shown): Promise<StepEnd> {
    const message = 'This exact action was already taken.';
    await this.audit.record(audited, {
      status: 'rejected',
      errorCode: 'DUPLICATE_ACTION',
      errorMessage: message,
      result: { idempotencyKey },
      durationMs: 0,
    });
    return leave(task, { status: 'Failed', lastError: 'DUPLICATE_ACTION' }, this.clock.now(), {
      ...shown,
      status: 'failed',
      code: 'DUPLICATE_ACTION',
      message,
    });
  }

  /** Runs the action on its channel once, with its key and a deadline; when it may have happened, asks the channel by key rather than guess. */
  private async perform(task: TaskScope, action: Begun): Promise<Effect> {
    const { proposal, idempotencyKey } = action;
    try {
      const signal = AbortSignal.timeout(this.settings.actionTimeoutMs);
      return { kind: 'record', record: await this.channels.perform(proposal, idempotencyKey, signal, task.claim), foundByKey: false };
    } catch (error) {
      this.logger.warn({ msg: 'outreach action failed', decisionId: task.decisionId, action: proposal.action, idempotencyKey, err: error });
      const failure = error instanceof ChannelError ? error : new ChannelError('UNAVAILABLE', describe(error), 'maybe', { cause: error });
      if (failure.performed !== 'maybe') return { kind: 'failed', failure };
      // It may have happened: never re-send.
      const found = await this.channels.lookup(proposal, idempotencyKey);
      if (found === 'unknowable') return { kind: 'unknown', failure };
      return found === null ? { kind: 'failed', failure } : { kind: 'record', record: found, foundByKey: true };
    }
  }

  /** How the action ends, given what the channel did. */
  private async settle(task: TaskScope, action: Begun, effect: Effect): Promise<Settled> {
    // What the task shows as sent: an email with the unsubscribe footer its channel adds.
    const sent = this.channels.asSent(action.proposal, task.claim);
    if (effect.kind === 'unknown') return unknownOutcome(action.proposal, effect.failure, sent);
    if (effect.kind === 'failed') return this.channelFailure(task, action.proposal, effect.failure);
    // After a failure, the record can only have come from the look-up by key.
    const verification = await this.channels.verify(action.proposal, action.idempotencyKey, effect.record, effect.foundByKey);
    return verification.verified ? verified(action.proposal, verification, sent) : unverified(action.proposal, verification, sent);
  }

  /** The channel says the action did not happen: its slot is given back; the task is tried again if the error allows and attempts remain. */
  private channelFailure(task: TaskScope, proposal: ChannelAction, error: ChannelError): Settled {
    const { attempts } = task.claim;
    const retry = error.retryable && attempts < MAX_TASK_ATTEMPTS;
    const nextRunAt = error.code === 'SESSION_EXPIRED' ? this.clock.now() : new Date(this.clock.now().getTime() + retryDelayMs(attempts));
    return {
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
    };
  }

  /** The action's settlement (its outcome, its audit row and the task's release, written with the cycle's decision row) and the cycle's outcome. */
  private finish(task: TaskScope, shown: Shown, action: Begun, settled: Settled): StepEnd {
    const now = this.clock.now();
    const durationMs = now.getTime() - action.started;
    this.metrics.toolCall(action.audited.tool, settled.status, durationMs / 1000);
    const { status, errorCode, result, verification } = settled;
    return {
      settlement: {
        kind: 'action',
        action: {
          actionId: action.actionId,
          taskId: task.taskId,
          pendingSeq: action.pendingSeq,
          audit: action.audited,
          // An error's row says what the cycle's outcome says of it.
          outcome:
            errorCode === null
              ? { status, result, durationMs }
              : { status, result, errorCode, errorMessage: settled.cycle.message, durationMs },
          task: settled.task,
          refundQuota: settled.refundQuota ? { day: action.day } : null,
          now,
        },
      },
      outcome: outcome({
        ...shown,
        ...settled.cycle,
        task: taskView(task, settled.task),
        execution: { status, idempotencyKey: action.idempotencyKey, durationMs, errorCode, result },
        verification: verification ? { verified: verification.verified, detail: verification.detail } : null,
      }),
    };
  }
}

/** The action may or may not have happened and the channel cannot tell: the task is failed for a person to review. */
function unknownOutcome(proposal: ChannelAction, failure: ChannelError, sent: ChannelAction): Settled {
  return {
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
  };
}

/** The channel did it and its effect is there: the task is completed, with what was sent. */
function verified(proposal: ChannelAction, verification: Verification, sent: ChannelAction): Settled {
  return {
    status: 'succeeded',
    errorCode: null,
    result: verification.output,
    verification,
    task: { status: 'Completed', output: withSentMessage(verification.output, sent), lastError: null },
    cycle: { status: 'completed', code: null, message: `${proposal.action} done and verified: ${verification.detail}.` },
  };
}

/** The channel answered but its effect is not what was asked: the task is failed, with the evidence. */
function unverified(proposal: ChannelAction, verification: Verification, sent: ChannelAction): Settled {
  const output = { ...verification.output, detail: verification.detail };
  return {
    status: 'failed',
    errorCode: 'VERIFICATION_FAILED',
    result: output,
    verification,
    task: { status: 'Failed', lastError: 'VERIFICATION_FAILED', output: withSentMessage(output, sent) },
    cycle: { status: 'failed', code: 'VERIFICATION_FAILED', message: `${proposal.action} could not be verified: ${verification.detail}.` },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
