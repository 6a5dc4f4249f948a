import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { Task } from '../../../domain/todo/task';

/** What the database shows of one person's tasks, to settle a call whose outcome was never recorded. */
export interface TaskEvidence {
  /** Their tasks as they are now. */
  readonly tasks: readonly Task[];
  /** The highest number their tasks were ever given: a higher number never existed. */
  readonly lastTaskNumber: number;
  /** Numbers of tasks that another call's recorded outcome names as the task it added. */
  readonly claimedTaskNumbers: ReadonlySet<number>;
}

/** A mutating todo tool call with a pending audit row and no outcome. */
export interface UnsettledCall {
  readonly tool: string;
  readonly arguments: ToolArguments | string;
  /** When its pending row was written, just before the tool ran. */
  readonly startedAt: Date;
}

/** A call to settle, as a tool's `settle` reads it: its arguments (readable), when it started, how long it could write. */
export interface SettlingCall {
  readonly arguments: ToolArguments;
  readonly startedAt: Date;
  /** How long after its pending row the call could still have written (its tool budget). */
  readonly windowMs: number;
}

export type SettledOutcome =
  | { readonly status: 'succeeded'; readonly result: Record<string, unknown> }
  | {
      readonly status: 'unknown';
      readonly errorCode: 'UNKNOWN_OUTCOME';
      readonly errorMessage: string;
      readonly result: { readonly detail: string; readonly review: true };
    };

/** The call's effect is there, and `evidence` says how it shows. */
export function succeeded(result: Record<string, unknown>, evidence: string): SettledOutcome {
  return { status: 'succeeded', result: { ...result, evidence, settledAfterCrash: true } };
}

/** The call may or may not have run (`detail` says why it cannot be told): for a person to review. */
export function unknownOutcome(detail: string): SettledOutcome {
  return {
    status: 'unknown',
    errorCode: 'UNKNOWN_OUTCOME',
    errorMessage: `The call may or may not have changed the list (${detail}); a person should review it.`,
    result: { detail, review: true },
  };
}

/** The task numbered so, as it is now. */
export function taskNumbered(evidence: TaskEvidence, taskNumber: number): Task | undefined {
  return evidence.tasks.find((task) => task.number === taskNumber);
}
