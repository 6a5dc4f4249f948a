import type { ActionKind, OutreachTaskType } from '../../../domain/outreach/outreach-task';
import type { QuotaBlock, QuotaScope, SlotLimits } from '../../../domain/outreach/quota';
import type { DraftProposal, DraftStatus, DraftTarget, ReviewProblem } from '../../../domain/outreach/review';
import type { ToolAuditEntry } from '../../audit/ports/audit-log.port';
import type { Page } from '../../shared/page';
import type { ClaimedTask } from './outreach-cycle-store.port';
import type { ReviewFallback } from '../../../domain/policy/policy';

/** A channel action held for its owner's review. */
export interface StoredDraft {
  readonly id: string;
  readonly status: DraftStatus;
  readonly ownerId: string;
  readonly campaignId: string;
  readonly campaignName: string;
  readonly taskId: string;
  readonly taskType: OutreachTaskType;
  readonly leadId: string;
  readonly leadName: string;
  readonly decisionId: string;
  /** The task's attempt that drafted it: with the task, the idempotency key of its one run. */
  readonly attempt: number;
  readonly kind: ActionKind;
  /** The exact action, arguments and reason that run once approved. */
  readonly proposal: DraftProposal;
  /** sha256 of the canonical arguments: what a review names. */
  readonly argumentsHash: string;
  /** The UTC day its quota slot was reserved on (and is given back on). */
  readonly quotaDay: string;
  readonly edited: boolean;
  readonly reviewerId: string | null;
  readonly reviewedAt: Date | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /**
   * When its owner's time ran out and a policy rule's `fallback: escalate` handed it to the
   * admins, who may decide it too from then on; null for a draft never escalated.
   */
  readonly escalatedAt: Date | null;
}

/** An escalated draft as the admins' queue shows it: whose it is. */
export interface EscalatedDraft extends StoredDraft {
  /** The owner's email; null when the account is gone. */
  readonly ownerEmail: string | null;
}

export interface HoldDraft {
  readonly claim: ClaimedTask;
  readonly decisionId: string;
  readonly proposal: DraftProposal;
  readonly kind: ActionKind;
  /** The day's and the rolling week's limits of each scope (domain/outreach/quota.ts slotLimits). */
  readonly limits: Readonly<Record<QuotaScope, SlotLimits>>;
  readonly day: string;
  readonly now: Date;
  readonly expiresAt: Date;
  /**
   * What its expiry does: by default the task drafts again; a policy rule's reviewer may say
   * `reject` (the draft expires and its task is cancelled, REVIEW_EXPIRED: nobody refused it) or
   * `escalate` (the admins may decide it for as long again, then it expires the same way) instead.
   */
  readonly onExpiry?: ReviewFallback;
  /** The action's audit entry: its row says confirmation_required, with the draft's id, hash and expiry. */
  readonly audit: ToolAuditEntry;
}

export type HoldResult =
  | { readonly status: 'held'; readonly draftId: string; readonly argumentsHash: string; readonly expiresAt: Date }
  /** `block`: the limit that refused, and when its next slot frees. */
  | { readonly status: 'quota_exceeded'; readonly scope: QuotaScope; readonly block: QuotaBlock }
  /** The claim expired: nothing was written. */
  | { readonly status: 'lease_lost' };

export type ReviewResult =
  | { readonly ok: true; readonly draft: StoredDraft }
  | { readonly ok: false; readonly problem: ReviewProblem; readonly status: DraftStatus }
  | { readonly ok: false; readonly problem: 'not_found' };

export interface ExpiryReport {
  /** Drafts past their expiry: slot given back, the task due again for a fresh draft. */
  readonly expired: number;
  /** Approved drafts whose task ended before they ran (e.g. the lead went on the do-not-contact list): slot given back. */
  readonly voided: number;
  /**
   * Drafts past their expiry whose rule escalates: handed to the admins for as long again
   * (on_expiry becomes reject: then it expires and its task is cancelled), still awaiting review, the slot still held.
   */
  readonly escalated: number;
}

/** Who decides a draft: its owner, or an admin deciding an escalated draft in the owner's stead. */
export interface ReviewInput {
  /** The draft's owner, whoever reviews it. */
  readonly ownerId: string;
  readonly draftId: string;
  readonly argumentsHash: string;
  /** The person deciding: the owner, or the admin. The audit row's actor. */
  readonly reviewerId: string;
  /** An admin's decision: only an escalated draft may be decided. */
  readonly escalatedOnly?: boolean;
  readonly now: Date;
}

/**
 * Review before send, in PostgreSQL. Every method is one transaction; a decision is one
 * conditional UPDATE on the draft's status and hash, so a double or stale review changes nothing.
 */
export abstract class OutreachDraftStore {
  /**
   * In one transaction: checks the claim and parks the task (AwaitingReview), reserves the
   * action's quota slot in both scopes (never past a limit), appends the audit row
   * (confirmation_required) and stores the draft bound to the hash of its arguments.
   */
  abstract hold(input: HoldDraft): Promise<HoldResult>;
  /** The owner's drafts, newest first, of one status if given. */
  abstract list(ownerId: string, status: DraftStatus | null, limit: number, cursor: string | null): Promise<Page<StoredDraft>>;
  /** One of the owner's drafts with what its edits are checked against; null for another owner's. */
  abstract get(ownerId: string, draftId: string): Promise<{ draft: StoredDraft; target: DraftTarget } | null>;
  /**
   * awaiting_review → approved, only while its hash is `argumentsHash` and it has not
   * expired; `edited` replaces its arguments (and hash). The task is due again. Audited with the reviewer.
   */
  abstract approve(input: ReviewInput & { edited: DraftProposal | null }): Promise<ReviewResult>;
  /** awaiting_review → rejected while its hash is `argumentsHash`: the slot is given back, the task Cancelled. Audited. */
  abstract reject(input: ReviewInput): Promise<ReviewResult>;
  /**
   * Escalates the drafts past their time whose rule says so (for as long again, before the
   * admins), expires the others and voids approved ones whose task ended; each expired or
   * voided draft gives its slot back.
   */
  abstract expire(now: Date, limit: number): Promise<ExpiryReport>;
  /** The escalated drafts still awaiting review, of every owner, the latest escalated first. */
  abstract listEscalated(limit: number, cursor: string | null): Promise<Page<EscalatedDraft>>;
  /** The owner of an escalated draft (whatever its status now); null when there is none or it was never escalated. */
  abstract escalatedOwner(draftId: string): Promise<string | null>;
}
