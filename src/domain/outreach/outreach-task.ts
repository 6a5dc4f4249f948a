/** The built-in task types, a lead's default steps in their order. */
export const TASK_TYPES = ['ScrapeProfile', 'SendLinkedInMessage', 'SendEmail'] as const;
export type BuiltInTaskType = (typeof TASK_TYPES)[number];
/** A built-in task type, or one a channel added declares (its action's `taskType`, e.g. `SendSms`): see ActionCatalog. */
export type OutreachTaskType = string;

/** AwaitingReview: a channel action waits as a draft for its owner's review (domain/outreach/review.ts); no cycle claims it. */
export const TASK_STATUSES = ['Pending', 'InProgress', 'AwaitingReview', 'Completed', 'Failed', 'Cancelled'] as const;
export type OutreachTaskStatus = (typeof TASK_STATUSES)[number];

/** What the built-in channels' actions meter: a look-up and a message on LinkedIn, an email. */
export const ACTION_KINDS = ['profile_lookup', 'linkedin_message', 'email'] as const;
export type BuiltInKind = (typeof ACTION_KINDS)[number];
/**
 * What a quota meters, per campaign and per owner: a built-in kind, or the kind of a channel
 * added beside them (`sms` …). Lower-case letters, digits and `_`, at most 32 characters.
 */
export type ActionKind = string;
export const ACTION_KIND_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** The one channel action each task type is done by, and the quota it draws on. */
export const TASK_ACTION = {
  ScrapeProfile: { action: 'linkedin_scrape_profile', kind: 'profile_lookup' },
  SendLinkedInMessage: { action: 'linkedin_send_message', kind: 'linkedin_message' },
  SendEmail: { action: 'send_email', kind: 'email' },
} as const satisfies Record<BuiltInTaskType, { action: string; kind: BuiltInKind }>;

/** A lead's tasks run in this order: look the person up, then message, then email. */
export const TASK_STEPS: readonly OutreachTaskType[] = TASK_TYPES;

export interface OutreachTask {
  readonly id: string;
  readonly campaignId: string;
  readonly leadId: string;
  readonly type: OutreachTaskType;
  readonly step: number;
  readonly status: OutreachTaskStatus;
  /** Cycles that claimed this task. */
  readonly attempts: number;
  readonly nextRunAt: Date;
  /**
   * What the last action produced (profile fields, message id) or why it failed; for a message
   * or email handed to its channel, also `sent` (SentMessage, see withSentMessage).
   */
  readonly output: Readonly<Record<string, unknown>> | null;
  /** Machine-readable reason of the last failure, shown to the planner (e.g. SESSION_EXPIRED). */
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
}

/** Attempts after which a task that keeps failing transiently is failed for good. */
export const MAX_TASK_ATTEMPTS = 5;

/** 1, 2, 4, 8… minutes, capped at an hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60 * 60_000, 60_000 * 2 ** Math.max(0, attempts - 1));
}
