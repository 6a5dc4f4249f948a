import type { ToolAuditEntry } from '../agent/ports/audit-log.port';
import type { TokenUsage } from '../agent/ports/language-model.port';
import type { CycleOutcome } from './cycle-outcome';
import type { ClaimedTask, FinishAction, TaskRelease } from './ports/outreach-cycle-store.port';

/** What one cycle accumulates for its decision-log row while its steps run. */
export interface Cycle {
  readonly decisionId: string;
  readonly started: Date;
  readonly campaignId: string;
  readonly ownerId: string;
  usage: TokenUsage;
  planningAttempts: number;
  failureClass: string | null;
  providerRequestId: string | null;
  /**
   * The cycle's last write to the task, made when the cycle ends together with its decision
   * row (one statement): the action's settlement if it acted, else the task's release. Null
   * when something else wrote the task's state (a draft held for review), or nothing did.
   */
  settlement: CycleSettlement | null;
}

export type CycleSettlement =
  | { readonly kind: 'action'; readonly action: FinishAction }
  | { readonly kind: 'release'; readonly claim: ClaimedTask; readonly release: TaskRelease; readonly now: Date };

/** The audit entry of a tool the cycle proposes or runs, with the cycle's own fields filled in. */
export type AuditEntryFor = (tool: string, args: unknown) => ToolAuditEntry;

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
