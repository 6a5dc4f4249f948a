import type { SettledOutcome, TaskEvidence, UnsettledCall } from './evidence';
import { TodoTools } from './todo-tools';

export type { SettledOutcome, TaskEvidence, UnsettledCall } from './evidence';

/**
 * The outcome of a todo tool call whose process stopped between its pending audit row and
 * its outcome, told from what the database shows now (each tool's `settle`, TodoTools.settle).
 * It never guesses: `succeeded` only when the call's effect is there and nothing else can
 * account for it; otherwise `unknown`, for a person to check.
 * @param windowMs how long after its pending row the call could still have written.
 */
export function settleFromEvidence(
  call: UnsettledCall,
  evidence: TaskEvidence,
  windowMs: number,
  tools: TodoTools = TodoTools.builtIn,
): SettledOutcome {
  return tools.settle(call, evidence, windowMs);
}
