import type { ToolAuditEntry } from '../../audit/ports/audit-log.port';
import type { SettledOutcome, TaskEvidence } from '../../todo/tools/evidence';

/** A chat or MCP tool call whose pending audit row has no outcome row. */
export interface UnsettledToolCall {
  readonly pendingSeq: number;
  /** The pending row's time. */
  readonly startedAt: Date;
  /** As the pending row recorded it; the outcome row repeats it. */
  readonly entry: ToolAuditEntry;
}

/**
 * What chat turns and tool calls cut off by a crash leave behind: pending audit rows with
 * no outcome, and answers never filled in. Safe with any number of sweepers at once.
 */
export abstract class InterruptedTurnStore {
  /** Unsettled calls (sources chat, mcp and api) whose pending row is older than `startedBefore`, by sequence after `afterSeq`. */
  abstract unsettledToolCalls(input: { startedBefore: Date; afterSeq: number; limit: number }): Promise<UnsettledToolCall[]>;
  /**
   * In one transaction serialised with every audit append: unless the call has an outcome
   * row by now, reads its actor's tasks and appends the outcome `decide` makes of them.
   * @returns that outcome, or null when the call was settled meanwhile (by another sweeper).
   */
  abstract settleToolCall(call: UnsettledToolCall, decide: (evidence: TaskEvidence) => SettledOutcome): Promise<SettledOutcome | null>;
  /**
   * Gives `content` as the answer, with status 'interrupted', to turns started before
   * `startedBefore` that never stored theirs, once none of their tool calls is unsettled.
   * Each such answer is written once, whoever else sweeps. @returns how many, at most `limit`.
   */
  abstract answerInterruptedTurns(input: { startedBefore: Date; content: string; now: Date; limit: number }): Promise<number>;
}
