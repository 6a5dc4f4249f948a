import type { CampaignTask, Draft } from '../api';
import type { Tone } from '../ui';
import { labelOf, TASK_STATUS } from './labels';
import { fullTime } from './time';

/*
 * What became of something Bridle held for a decision, in the console's words. The server's
 * own sentences (a confirmation's `message`) come from its one vocabulary
 * (src/domain/shared/hold-ending.ts); these follow it: an expiry is never a refusal, nobody
 * decided in time.
 */

/** A draft past its expiry, whether or not the server's sweep has closed it yet. */
export const draftExpired = (draft: Draft, now: number): boolean =>
  draft.status === 'expired' || (draft.status === 'awaiting_review' && Date.parse(draft.expiresAt) <= now);

/** A draft that no longer waits for review, in a sentence: approved, sent, rejected by its reviewer, or expired undecided. */
export function draftOutcome(draft: Draft, now: number): string | null {
  if (draftExpired(draft, now)) {
    return `It expired undecided: nobody reviewed it before ${fullTime(draft.expiresAt)}, so nothing was sent.`;
  }
  switch (draft.status) {
    case 'approved':
      return 'It was approved, and runs at its task’s next cycle.';
    case 'sent':
      return 'It was approved and sent.';
    case 'rejected':
      return 'Its reviewer rejected it, so it was never sent.';
    default:
      return null;
  }
}

/** The badge of a draft's status in a person's words. */
export const DRAFT_STATUS: Record<string, { label: string; tone: Tone }> = {
  awaiting_review: { label: 'Awaiting review', tone: 'accent' },
  approved: { label: 'Approved', tone: 'success' },
  sent: { label: 'Sent', tone: 'success' },
  rejected: { label: 'Rejected by its reviewer', tone: 'warning' },
  expired: { label: 'Expired', tone: 'warning' },
};

/** What a task's `lastError` of a review means, in a sentence: a review's ending is no error. */
const REVIEW_ENDINGS: Record<string, string> = {
  REVIEW_EXPIRED: 'Its draft expired undecided: nobody reviewed it in time, so nothing was sent and this step was cancelled.',
  DRAFT_EXPIRED: 'Its last draft expired undecided; a fresh one is made at its next cycle.',
  REJECTED_BY_REVIEWER: 'Its reviewer rejected the draft, so nothing was sent.',
};

export const reviewEnding = (lastError: string): string | null => REVIEW_ENDINGS[lastError] ?? null;

/** A task's badge: a step cancelled because its draft expired undecided says Expired, not just Cancelled. */
export const taskStatus = (task: CampaignTask): { label: string; tone: Tone } =>
  task.status === 'Cancelled' && task.lastError === 'REVIEW_EXPIRED'
    ? { label: 'Expired', tone: 'warning' }
    : labelOf(TASK_STATUS, task.status);
