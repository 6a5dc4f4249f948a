import type { PlannerErrorCode } from './actions';
import { contextProblems, type ContextCheck, quotaCheck, type TaskContext } from './planning';
import { type ActionCatalog, BUILT_IN_ACTIONS } from './action-catalog';
import { kindLabel, QUOTA_SCOPES } from './quota';

/**
 * How long a task waits after the model made a claim the controller's state contradicts:
 * long enough not to ask the model again at once, short enough that the task runs again
 * within the hour (a refused claim changes nothing, so the task is not parked for a day).
 */
export const REFUSED_CLAIM_RETRY_MS = 10 * 60_000;

/** What the controller's own check found that confirms a claim: the task stops as if the controller had found it first. */
export type ConfirmedClaim = Extract<ContextCheck, { code: 'QUOTA_EXCEEDED' | 'INVALID_CONTEXT' }>;

export type ClaimVerdict =
  | { readonly holds: true; readonly check: ConfirmedClaim }
  /** `reason`: "claim refused: <code> but <what the state says>", for the audit row and the cycle's answer. */
  | { readonly holds: false; readonly reason: string };

/**
 * Whether a model's error answer about the controller's own state holds, given that state
 * (the context the cycle read, which is what the model was shown): QUOTA_EXCEEDED holds only
 * when a limit of the task's kind, daily or weekly, of the campaign or its owner, is reached;
 * INVALID_CONTEXT only when the context lacks what the task's action needs. The model's word
 * is a hint: what it claims takes effect only as the controller's own finding.
 * @returns null for a code that claims nothing about that state (NO_VALID_ACTION).
 */
export function judgeClaim(
  code: PlannerErrorCode,
  context: TaskContext,
  now: Date,
  catalog: ActionCatalog = BUILT_IN_ACTIONS,
): ClaimVerdict | null {
  switch (code) {
    case 'QUOTA_EXCEEDED': {
      const check = quotaCheck(context, now, catalog);
      return check
        ? { holds: true, check }
        : { holds: false, reason: `claim refused: QUOTA_EXCEEDED but ${tightestRoom(context, catalog)}` };
    }
    case 'INVALID_CONTEXT': {
      const problems = contextProblems(context);
      return problems.length
        ? { holds: true, check: { ok: false, code: 'INVALID_CONTEXT', problems } }
        : { holds: false, reason: `claim refused: INVALID_CONTEXT but ${completeness(context, catalog)}` };
    }
    case 'NO_VALID_ACTION':
      return null;
  }
}

/** "0 of 50 used: the campaign's daily profile look-up limit, the tightest of this task's, has 50 left". */
function tightestRoom(context: TaskContext, catalog: ActionCatalog): string {
  const { kind } = catalog.taskAction(context.task.type);
  const limits = QUOTA_SCOPES.flatMap((scope) => {
    const use = context.quota[kind][scope];
    const day = { scope, window: 'daily', used: use.used, limit: use.limit };
    return use.week.limit === null ? [day] : [day, { scope, window: 'weekly', used: use.week.used, limit: use.week.limit }];
  });
  // In QUOTA_SCOPES' order, the day before the week: on a tie the first one is named.
  const tightest = limits.reduce((least, each) => (each.limit - each.used < least.limit - least.used ? each : least));
  return (
    `${tightest.used} of ${tightest.limit} used: the ${tightest.scope}'s ${tightest.window} ${kindLabel(kind)} limit, ` +
    `the tightest of this task's, has ${tightest.limit - tightest.used} left`
  );
}

/** "the context is complete for send_email: the lead's LinkedIn URL and email address are recorded, …". */
function completeness(context: TaskContext, catalog: ActionCatalog): string {
  const { action } = catalog.taskAction(context.task.type);
  const recorded = action === 'send_email' ? "the lead's LinkedIn URL and email address are" : "the lead's LinkedIn URL is";
  return `the context is complete for ${action}: ${recorded} recorded, the task is open and the campaign active`;
}
