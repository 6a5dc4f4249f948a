import type { DecisionMeasures } from '../../agent/decision-measures';
import type { Proposal } from '../../../domain/outreach/actions';
import type { CycleContext } from '../../../domain/outreach/planning';
import type { ActionKind, OutreachTaskStatus } from '../../../domain/outreach/outreach-task';
import type { OwnerLimits, QuotaBlock, QuotaScope, SlotLimits } from '../../../domain/outreach/quota';
import type { ApprovalPolicy, DraftProposal } from '../../../domain/outreach/review';
import type { ToolAuditEntry, ToolAuditOutcome } from '../../audit/ports/audit-log.port';

/** A task one worker holds: `attempts` (incremented by the claim) is the claim's token. */
export interface ClaimedTask {
  readonly taskId: string;
  readonly campaignId: string;
  readonly ownerId: string;
  readonly workerId: string;
  readonly attempts: number;
}

export type TaskCycleContext = Extract<CycleContext, { kind: 'task' }>;

/** A draft of the task its owner approved and that has not run yet: it runs as approved, on the slot it holds. */
export interface ApprovedDraft {
  readonly id: string;
  /** The task's attempt that drafted it: with the task, the idempotency key of its one run. */
  readonly attempt: number;
  readonly proposal: DraftProposal;
  /** The UTC day its quota slot was reserved on. */
  readonly quotaDay: string;
}

/** What review before send needs in a task cycle (domain/outreach/approval.ts needsReview). */
export interface TaskReview {
  readonly policy: ApprovalPolicy;
  /** Drafts of the task's kind its owner approved (sent or about to be), counted up to `policy.firstN`: all needsReview asks. */
  readonly approved: number;
  readonly approvedDraft: ApprovedDraft | null;
}

/** A claimed task as a cycle reloads it: its context for the checks and the planner, and its review state. */
export interface LoadedTask {
  readonly context: TaskCycleContext;
  readonly review: TaskReview;
}

/** What a claim takes: the worker and its lease; and what the claimed task's context is read with. */
export interface ClaimInput {
  readonly workerId: string;
  readonly now: Date;
  readonly leaseMs: number;
  /** Only this campaign's tasks. */
  readonly campaignId?: string;
  /** The UTC day the quota is read for. */
  readonly day: string;
  readonly ownerLimits: OwnerLimits;
  readonly secretNames: readonly string[];
  /** The cycle's decision row, written as pending by the claim's statement when it claims a task (none: no row until the cycle ends). */
  readonly decision?: OpenedDecision;
}

/**
 * A cycle's decision row as it is opened, before the model is asked: decision type `PENDING`,
 * status `pending`, with the task (or campaign) and owner of what the statement read. The
 * cycle's end settles it (finish, releaseTask, recordDecision); one a worker left behind
 * stays pending, a trace of the cycle it did not finish, until the sweeper marks it
 * `interrupted` (closeAbandonedDecisions).
 */
export interface OpenedDecision {
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly createdAt: Date;
}

/** A task claimed, with its context as the claim read it. */
export interface ClaimedWork {
  readonly claim: ClaimedTask;
  readonly loaded: LoadedTask;
}

export type WrapUpContext = Extract<CycleContext, { kind: 'wrap_up' }>;

/** Where a cycle leaves its task. */
export interface TaskRelease {
  readonly status: Exclude<OutreachTaskStatus, 'InProgress'>;
  /** When a Pending task is due again. */
  readonly nextRunAt?: Date;
  readonly output?: Readonly<Record<string, unknown>> | null;
  readonly lastError?: string | null;
}

export interface BeginAction {
  readonly claim: ClaimedTask;
  readonly decisionId: string;
  readonly proposal: Proposal;
  readonly kind: ActionKind;
  readonly channel: string;
  /** domain/outreach/planning.ts idempotencyMaterial; the store hashes it into the key. */
  readonly idempotencyMaterial: string;
  /** The day's and the rolling week's limits of each scope (domain/outreach/quota.ts slotLimits). */
  readonly limits: Readonly<Record<QuotaScope, SlotLimits>>;
  readonly day: string;
  readonly now: Date;
  readonly leaseMs: number;
  readonly audit: ToolAuditEntry;
  /**
   * An approved draft this action runs: its slot was reserved when it was drafted, so none
   * is taken now, and the draft becomes `sent` in the same transaction (a draft no longer
   * approved answers `duplicate`).
   */
  readonly approvedDraftId?: string;
}

export type BeginResult =
  | { readonly status: 'reserved'; readonly actionId: string; readonly idempotencyKey: string; readonly pendingSeq: number }
  /** `block`: the limit that refused, and when its next slot frees. */
  | { readonly status: 'quota_exceeded'; readonly scope: QuotaScope; readonly block: QuotaBlock }
  | { readonly status: 'duplicate'; readonly idempotencyKey: string }
  /** The claim expired and another worker may hold the task: nothing was written. */
  | { readonly status: 'lease_lost' };

export interface FinishAction {
  readonly actionId: string;
  readonly taskId: string;
  readonly pendingSeq: number;
  readonly audit: ToolAuditEntry;
  readonly outcome: ToolAuditOutcome & { readonly status: 'succeeded' | 'failed' | 'unknown' };
  readonly task: TaskRelease;
  /**
   * Set when the action certainly did not happen (the channel refused it, or found no trace
   * of it by its key): the slot reserved on `day` is given back in both scopes.
   */
  readonly refundQuota: { readonly day: string } | null;
  readonly now: Date;
  /** The cycle's decision row, written with the settlement (a cycle's last write); none from the sweeper. */
  readonly decision?: OutreachDecision;
}

/** An action whose worker stopped (or stalled) between its pending row and its outcome. */
export interface StaleAction {
  readonly actionId: string;
  readonly taskId: string;
  readonly campaignId: string;
  readonly ownerId: string;
  readonly decisionId: string;
  readonly pendingSeq: number;
  readonly proposal: Proposal;
  readonly channel: string;
  readonly idempotencyKey: string;
}

export interface OutreachDecision extends DecisionMeasures {
  readonly id: string;
  readonly ownerId: string;
  readonly campaignId: string;
  readonly taskId: string | null;
  /** The action taken, or the code of why none was. */
  readonly decisionType: string;
  readonly status: string;
  readonly createdAt: Date;
}

/**
 * The outreach controller's state, shaped around one cycle. Every method is one
 * transaction; correctness under any number of workers comes from PostgreSQL.
 */
export abstract class OutreachCycleStore {
  /**
   * Claims the most overdue task of an active campaign (FOR UPDATE SKIP LOCKED, with a lease)
   * and reads its context and review state, and opens the cycle's decision row if given, in one statement.
   */
  abstract claimTask(input: ClaimInput): Promise<ClaimedWork | null>;
  /** An active campaign (this one, if given) with no open task left. */
  abstract findFinishedCampaign(input: { campaignId?: string }): Promise<{ campaignId: string; ownerId: string } | null>;
  /** The context of a campaign's wrap-up; with `decision`, the same statement opens the cycle's decision row (as claimTask does). */
  abstract loadWrapUpContext(
    campaignId: string,
    input: { day: string; ownerLimits: OwnerLimits; decision?: OpenedDecision },
  ): Promise<WrapUpContext | null>;
  /** Leaves the claimed task as `release` says, if the claim is still held; writes the cycle's decision row if given, either way. */
  abstract releaseTask(claim: ClaimedTask, release: TaskRelease, now: Date, decision?: OutreachDecision): Promise<boolean>;
  /** Moves every Pending task of `kind` in the exhausted scope to `until`. @returns how many. */
  abstract deferKind(input: {
    ownerId: string;
    campaignId: string;
    scope: QuotaScope;
    kind: ActionKind;
    until: Date;
    now: Date;
  }): Promise<number>;
  /**
   * In one transaction: checks the claim, reserves one quota slot in both scopes (never
   * past a daily or weekly limit), appends the pending audit row and the action row with its key.
   */
  abstract begin(input: BeginAction): Promise<BeginResult>;
  /** In one transaction: the action's status, the audit outcome row, the task's new state, and the decision row if given. */
  abstract finish(input: FinishAction): Promise<void>;
  /** Completes the campaign if no task is open, and tells its owner (campaign.finished) in the same transaction. */
  abstract completeCampaign(campaignId: string, now: Date): Promise<boolean>;
  /** Writes the cycle's decision row, or settles the one its claim opened (finish and releaseTask do the same with theirs). */
  abstract recordDecision(decision: OutreachDecision): Promise<void>;
  /** In-flight actions past their lease, leased anew to the caller so one sweeper handles each. */
  abstract claimStaleActions(input: { now: Date; leaseMs: number; limit: number }): Promise<StaleAction[]>;
  /**
   * Marks `interrupted` (failure class `INTERRUPTED`) up to `limit` of the pending decision rows
   * of outreach cycles opened before `openedBefore`, oldest first: cycles whose worker died. Their
   * decision type stays `PENDING`; chat's pending rows are left to chat's sweeper. @returns how many.
   */
  abstract closeAbandonedDecisions(input: { openedBefore: Date; limit: number }): Promise<number>;
}
