import type { ToolAuditEntry } from '../audit/ports/audit-log.port';
import type { TokenUsage } from '../agent/ports/language-model.port';
import type { CycleStatus } from '../../domain/outreach/cycle-status';
import type { CycleOutcome } from './cycle-outcome';
import type { ClaimedTask, FinishAction, TaskCycleContext, TaskRelease } from './ports/outreach-cycle-store.port';

/**
 * What one cycle is about, fixed when it starts: every step reads it, none changes it.
 * `taskId` names the task a task cycle works; a campaign's wrap-up has none.
 */
export interface CycleScope {
  readonly decisionId: string;
  readonly started: Date;
  readonly campaignId: string;
  readonly ownerId: string;
  readonly taskId: string | null;
}

/** A task cycle's scope: the claimed task and its context as the claim read it. */
export interface TaskScope extends CycleScope {
  readonly taskId: string;
  readonly claim: ClaimedTask;
  readonly context: TaskCycleContext;
}

/** What the cycle's decision row records of the model: what planning cost, and why it failed if it did. */
export interface DecisionFields {
  readonly usage: TokenUsage;
  readonly planningAttempts: number;
  readonly failureClass: string | null;
  readonly providerRequestId: string | null;
}

/** The decision fields of a cycle that did not ask the model. */
export const UNPLANNED: DecisionFields = {
  usage: { promptTokens: 0, completionTokens: 0 },
  planningAttempts: 0,
  failureClass: null,
  providerRequestId: null,
};

/**
 * The cycle's last write to the task, made when the cycle ends together with its decision
 * row (one statement): the action's settlement if it acted, else the task's release.
 */
export type CycleSettlement =
  | { readonly kind: 'action'; readonly action: FinishAction }
  | { readonly kind: 'release'; readonly claim: ClaimedTask; readonly release: TaskRelease; readonly now: Date };

/**
 * What a step ends the cycle with: its outcome, and its settlement; null when something
 * else wrote the task's state (a draft held for review), or nothing did.
 */
export interface StepEnd {
  readonly outcome: CycleOutcome;
  readonly settlement: CycleSettlement | null;
}

/** How a cycle ended: its last step's end, with what its decision row records of the model. */
export interface CycleEnd extends StepEnd {
  readonly decision: DecisionFields;
}

/** What an outcome shows of the checked proposal a step works on, and of its validation. */
export interface Shown {
  readonly proposal: CycleOutcome['proposal'];
  readonly validation: CycleOutcome['validation'];
}

/** What a step that leaves its task says about it. */
export type StepResult = Omit<Partial<CycleOutcome>, 'task'> & { status: CycleStatus; message: string };

/** The audit entry of a tool the cycle proposes or runs, with the cycle's own fields filled in. */
export function auditEntry(scope: CycleScope, tool: string, args: unknown): ToolAuditEntry {
  return {
    source: 'outreach',
    actorId: scope.ownerId,
    campaignId: scope.campaignId,
    ...(scope.taskId === null ? {} : { outreachTaskId: scope.taskId }),
    decisionId: scope.decisionId,
    tool,
    arguments: (args ?? {}) as Record<string, unknown>,
    securityEvents: [],
  };
}

/** The task as the cycle's outcome shows it once left as `release` says. */
export function taskView(task: TaskScope, release: TaskRelease): CycleOutcome['task'] {
  return {
    id: task.taskId,
    type: task.context.task.type,
    leadName: task.context.lead.name,
    status: release.status,
    attempts: task.claim.attempts,
    nextRunAt: release.status === 'Pending' ? (release.nextRunAt ?? task.started) : null,
  };
}

/** Leaves the claimed task as `release` says (at `now`, with the cycle's decision row), and answers `result` with the task's view. */
export function leave(task: TaskScope, release: TaskRelease, now: Date, result: StepResult): StepEnd {
  return {
    outcome: outcome({ ...result, task: taskView(task, release) }),
    settlement: { kind: 'release', claim: task.claim, release, now },
  };
}

/** The task's lease ran out before `step`: nothing was done, and another cycle takes the task. */
export function leaseLost(shown: Shown, step: 'acting' | 'drafting'): StepEnd {
  const message = `The claim on this task expired before ${step}; nothing was done.`;
  return { outcome: outcome({ ...shown, status: 'failed', code: 'LEASE_LOST', message }), settlement: null };
}

/** An outcome with every step it did not reach left null. */
export function outcome(fields: Partial<CycleOutcome> & Pick<CycleOutcome, 'status' | 'message'>): CycleOutcome {
  return {
    code: null,
    decisionId: null,
    campaignId: null,
    task: null,
    proposal: null,
    validation: null,
    execution: null,
    verification: null,
    review: null,
    ...fields,
  };
}
