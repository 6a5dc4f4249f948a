import { DomainError, DomainValidationError } from '../shared/domain-error';
import { holdEndingSentence } from '../shared/hold-ending';
import type { SchemaCheck } from '../agent/tools';
import { type AddedAction, checkProposal, type Proposal } from './actions';
import type { CampaignStatus } from './campaign';
import { fitProblems, type CycleContext } from './planning';
import type { OutreachTaskType } from './outreach-task';

export * from './approval';

/**
 * awaiting_review → approved → sent; awaiting_review → rejected (slot given back);
 * awaiting_review → expired (slot given back, the task drafts again). Only awaiting_review
 * is decided by a person; the others are final, except approved, which the cycle sends.
 */
export const DRAFT_STATUSES = ['awaiting_review', 'approved', 'rejected', 'expired', 'sent'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

export const DEFAULT_DRAFT_TTL_HOURS = 72;

/** The actions a draft holds: the ones that reach the network. */
export type DraftProposal =
  | Extract<Proposal, { action: 'linkedin_scrape_profile' | 'linkedin_send_message' | 'send_email' }>
  | (AddedAction & { readonly reason: string });

/** What a reviewer may change: the LinkedIn message; an email's subject and body. Never the target. */
export interface DraftEdits {
  readonly message?: string;
  readonly subject?: string;
  readonly body?: string;
}

export const EDITABLE_FIELDS: Readonly<Record<DraftProposal['action'], readonly (keyof DraftEdits)[]>> = {
  linkedin_scrape_profile: [],
  linkedin_send_message: ['message'],
  send_email: ['subject', 'body'],
};

/** Who the draft is for, as the domain checks of a model's proposal need it. */
export interface DraftTarget {
  readonly campaign: { readonly id: string; readonly name: string; readonly status: CampaignStatus };
  readonly task: { readonly id: string; readonly type: OutreachTaskType; readonly attempts: number };
  readonly lead: { readonly name: string; readonly linkedinUrl: string; readonly email: string | null };
  /** The lead's addresses on the owner's do-not-contact list. */
  readonly doNotContact: readonly string[];
}

export class InvalidDraftEditError extends DomainValidationError {
  readonly code = 'OUTREACH.INVALID_DRAFT_EDIT';
}

export class DraftNotFoundError extends DomainError {
  readonly code = 'OUTREACH.DRAFT_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Draft was not found');
  }
}

/** The draft was decided (or expired, or sent) already: this review changes nothing. */
export class DraftNotAwaitingReviewError extends DomainError {
  readonly code = 'OUTREACH.DRAFT_NOT_AWAITING_REVIEW';
  readonly kind = 'conflict' as const;
  constructor(readonly status: DraftStatus) {
    super(`The draft is ${status}, no longer awaiting review`);
  }
}

/** The review was made on other arguments than the draft holds now: it is refused. */
export class DraftHashMismatchError extends DomainError {
  readonly code = 'OUTREACH.DRAFT_HASH_MISMATCH';
  readonly kind = 'conflict' as const;
  constructor() {
    super('argumentsHash is not the hash of the draft as it stands; read the draft again');
  }
}

/** The draft's time ran out before this review: nobody decided it in time, and this review changes nothing. */
export class DraftExpiredError extends DomainError {
  readonly code = 'OUTREACH.DRAFT_EXPIRED';
  readonly kind = 'conflict' as const;
  constructor() {
    super('The draft expired before this review: nobody decided it in time, so this review changes nothing');
  }
}

/**
 * A task's `lastError` when its draft expired undecided: DRAFT_EXPIRED when the task drafts
 * again (the campaign's own review mode), REVIEW_EXPIRED when a policy rule's fallback
 * (`reject`) cancels it. Neither is a refusal: nobody decided the draft in time.
 */
export const DRAFT_EXPIRED = 'DRAFT_EXPIRED';
export const REVIEW_EXPIRED = 'REVIEW_EXPIRED';

/**
 * What a draft's expiry did, in words (holdEndingSentence): "The draft expired undecided after
 * 3 days, so nothing was sent and a fresh draft will be made." `cancelsTask`: the rule's
 * fallback cancelled the task instead. `waitedMs`: from its drafting to its expiry (an
 * escalated draft's includes the admins' time).
 */
export function draftExpirySentence(cancelsTask: boolean, waitedMs: number): string {
  return holdEndingSentence('expired', {
    kind: 'review',
    what: 'the draft',
    who: 'its reviewer',
    waitedMs,
    so: cancelsTask ? 'nothing was sent and its task was cancelled' : 'nothing was sent and a fresh draft will be made',
  });
}

export type ReviewProblem = 'not_awaiting_review' | 'hash_mismatch' | 'expired';

/** Whether a review of `argumentsHash` at `now` may decide this draft; null when it may. */
export function reviewProblem(
  draft: { readonly status: DraftStatus; readonly argumentsHash: string; readonly expiresAt: Date },
  review: { readonly argumentsHash: string; readonly now: Date },
): ReviewProblem | null {
  if (draft.status !== 'awaiting_review') return 'not_awaiting_review';
  if (draft.argumentsHash !== review.argumentsHash) return 'hash_mismatch';
  if (draft.expiresAt.getTime() <= review.now.getTime()) return 'expired';
  return null;
}

/** The domain error for a review problem. */
export function reviewError(problem: ReviewProblem, status: DraftStatus): DomainError {
  switch (problem) {
    case 'not_awaiting_review':
      return new DraftNotAwaitingReviewError(status);
    case 'hash_mismatch':
      return new DraftHashMismatchError();
    case 'expired':
      return new DraftExpiredError();
  }
}

/**
 * The draft with a reviewer's edits, checked by the same rules as a model's proposal
 * (checkProposal with `schemas`, then fitProblems for the task, its lead and the do-not-contact list).
 * @throws InvalidDraftEditError naming `edits.<field>` for a field the action does not have, or a result the rules refuse.
 */
export function editDraft(proposal: DraftProposal, edits: DraftEdits, target: DraftTarget, schemas: SchemaCheck): DraftProposal {
  const allowed = EDITABLE_FIELDS[proposal.action];
  for (const [field, value] of Object.entries(edits)) {
    if (value === undefined) continue;
    if (!(allowed as readonly string[]).includes(field)) {
      throw new InvalidDraftEditError(
        `edits.${field}`,
        allowed.length
          ? `edits.${field} cannot be changed on ${proposal.action}: only ${allowed.map((name) => `edits.${name}`).join(', ')}`
          : `${proposal.action} has nothing a reviewer may edit`,
      );
    }
  }
  const args: Record<string, unknown> = { ...proposal.args };
  for (const field of allowed) if (edits[field] !== undefined) args[field] = edits[field];
  const checked = checkProposal({ action: proposal.action, args, reason: proposal.reason }, schemas);
  if (!checked.ok) throw new InvalidDraftEditError(editedField(checked.problems[0], allowed), checked.problems.join('; '));
  const problems = fitProblems(checked.value, contextOf(target));
  if (problems.length) throw new InvalidDraftEditError(editedField(problems[0], allowed), problems.join('; '));
  return checked.value;
}

function editedField(problem: string, allowed: readonly (keyof DraftEdits)[]): string {
  const field = allowed.find((name) => problem.includes(`args.${name}`));
  return field ? `edits.${field}` : 'edits';
}

/** The task cycle context fitProblems reads; quota plays no part in it. */
function contextOf(target: DraftTarget): CycleContext {
  return {
    kind: 'task',
    campaign: target.campaign,
    task: { ...target.task, status: 'InProgress', lastError: null },
    lead: { ...target.lead, profile: null },
    // fitProblems never reads the quota: a reviewer's edit takes no slot (the draft holds one).
    quota: {},
    recent: [],
    doNotContact: target.doNotContact,
    secretNames: [],
  };
}
