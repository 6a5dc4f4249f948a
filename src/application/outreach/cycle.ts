import type { ToolAuditEntry } from '../agent/ports/audit-log.port';
import type { TokenUsage } from '../agent/ports/language-model.port';
import type { CycleOutcome } from './cycle-outcome';
import type { FinishAction } from './ports/outreach-cycle-store.port';

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
   * The action's settlement, once the cycle acted: written when the cycle ends, in one
   * statement with its decision row (OutreachCycleStore.finish).
   */
  settlement: FinishAction | null;
}

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
