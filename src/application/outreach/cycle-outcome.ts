import type { CycleStatus } from '../../domain/outreach/cycle-status';
import type { OutreachTaskStatus, OutreachTaskType } from '../../domain/outreach/outreach-task';

export type CycleCode =
  | 'NO_TASK'
  | 'INVALID_CONTEXT'
  | 'QUOTA_EXCEEDED'
  | 'DO_NOT_CONTACT'
  | 'NO_VALID_ACTION'
  /** The model claimed QUOTA_EXCEEDED or INVALID_CONTEXT and the controller's state contradicts it: the task runs again soon. */
  | 'CLAIM_REFUSED'
  | 'MODEL_UNAVAILABLE'
  | 'LEASE_LOST'
  | 'DUPLICATE_ACTION'
  | 'VERIFICATION_FAILED'
  | 'SECRET_NOT_FOUND'
  | 'CHANNEL_ERROR'
  /** No channel performs the action's kind: it is refused, never sent through another channel. */
  | 'NO_CHANNEL'
  | 'AWAITING_REVIEW'
  /** A rule of the policy in force refused the action, or one of its limits is reached (docs/policies.md). */
  | 'POLICY_DENIED'
  | 'POLICY_LIMIT_REACHED';

/** What one cycle did, step by step: what `POST /campaigns/:id/cycles` answers. */
export interface CycleOutcome {
  readonly status: CycleStatus;
  readonly code: CycleCode | null;
  /** One sentence for a person. */
  readonly message: string;
  readonly decisionId: string | null;
  readonly campaignId: string | null;
  readonly task: {
    readonly id: string;
    readonly type: OutreachTaskType;
    readonly leadName: string;
    readonly status: OutreachTaskStatus;
    readonly attempts: number;
    readonly nextRunAt: Date | null;
  } | null;
  readonly proposal: {
    readonly action: string;
    readonly args: Readonly<Record<string, unknown>>;
    readonly reason: string;
    /** 'controller' when the controller decided without asking the model (e.g. quota). */
    readonly by: 'model' | 'controller';
  } | null;
  readonly validation: { readonly accepted: boolean; readonly attempts: number; readonly problems: readonly string[] } | null;
  readonly execution: {
    readonly status: 'succeeded' | 'failed' | 'unknown';
    readonly idempotencyKey: string | null;
    readonly durationMs: number;
    readonly errorCode: string | null;
    readonly result: unknown;
  } | null;
  readonly verification: { readonly verified: boolean; readonly detail: string } | null;
  /** The draft a held action waits in (status awaiting_review); null otherwise. */
  readonly review: { readonly draftId: string; readonly argumentsHash: string; readonly expiresAt: Date } | null;
}
