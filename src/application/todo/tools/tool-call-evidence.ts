import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import { DomainValidationError } from '../../../domain/shared/domain-error';
import { changeTask, draftTask, type Task, type TaskChanges, type TaskPriority } from '../../../domain/todo/task';
import { view } from './todo-toolbox';

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

export type SettledOutcome =
  | { readonly status: 'succeeded'; readonly result: Record<string, unknown> }
  | {
      readonly status: 'unknown';
      readonly errorCode: 'UNKNOWN_OUTCOME';
      readonly errorMessage: string;
      readonly result: { readonly detail: string; readonly review: true };
    };

/**
 * The outcome of a todo tool call whose process stopped between its pending audit row and
 * its outcome, told from what the database shows now. `succeeded` only when the call's
 * effect is there and nothing else can account for it; otherwise `unknown`, for a person to
 * check. It never guesses: an add is not idempotent, so only a task created while the call
 * could still run, and not claimed by another call, counts; completing, updating and
 * deleting by number leave a state the call would have left, whoever ran first.
 * @param windowMs how long after its pending row the call could still have written (its
 *   tool budget: a task's time is taken as the tool starts, right after that row commits).
 */
export function settleFromEvidence(call: UnsettledCall, evidence: TaskEvidence, windowMs: number): SettledOutcome {
  if (typeof call.arguments === 'string') return unknown('its arguments were not readable');
  try {
    return settle(call.tool, call.arguments, call.startedAt, evidence, windowMs);
  } catch (error) {
    // Arguments the tool itself would have refused (e.g. masked when recorded) prove nothing.
    if (error instanceof DomainValidationError) return unknown(`its arguments do not describe a task: ${error.message}`);
    throw error;
  }
}

function settle(tool: string, args: ToolArguments, startedAt: Date, evidence: TaskEvidence, windowMs: number): SettledOutcome {
  const byNumber = (taskNumber: number) => evidence.tasks.find((task) => task.number === taskNumber);
  switch (tool) {
    case 'add_task': {
      const draft = draftTask({
        title: typeof args.title === 'string' ? args.title : '',
        description: args.description as string | undefined,
        priority: args.priority as TaskPriority | undefined,
      });
      const from = startedAt.getTime();
      const added = evidence.tasks
        .filter(
          (task) =>
            task.title === draft.title &&
            task.description === draft.description &&
            task.priority === draft.priority &&
            task.createdAt.getTime() >= from &&
            task.createdAt.getTime() <= from + windowMs &&
            !evidence.claimedTaskNumbers.has(task.number),
        )
        .sort((a, b) => a.number - b.number)[0];
      return added
        ? succeeded({ task: view(added) }, `task ${added.number} has this title and was created while the call could run`)
        : unknown('no task that this call could have added is there');
    }
    case 'complete_task': {
      if (typeof args.number !== 'number') return unknown('it named its task by words, which cannot be matched now');
      const task = byNumber(args.number);
      if (!task?.completed) return unknown(`task ${args.number} is ${task ? 'not completed' : 'gone'}`);
      const alreadyCompleted = task.completedAt !== null && task.completedAt.getTime() < startedAt.getTime();
      return succeeded({ task: view(task), alreadyCompleted }, `task ${task.number} is completed`);
    }
    case 'update_task': {
      if (typeof args.number !== 'number') return unknown('it named its task by words, which cannot be matched now');
      const task = byNumber(args.number);
      if (!task) return unknown(`task ${args.number} is gone`);
      const changes: TaskChanges = {
        title: args.title as string | undefined,
        description: args.description as string | undefined,
        priority: args.priority as TaskPriority | undefined,
      };
      const wanted = changeTask(task, changes, startedAt);
      const fields = (['title', 'description', 'priority'] as const).filter((field) => changes[field] !== undefined);
      if (fields.length === 0 || fields.some((field) => wanted[field] !== task[field])) {
        return unknown(`task ${task.number} does not hold what the call asked for`);
      }
      return succeeded({ task: view(task) }, `task ${task.number} holds what the call asked for`);
    }
    case 'delete_task': {
      const numbers = deletedNumbersOf(args);
      if (numbers === null) return unknown('it named its tasks by words or by scope, which cannot be matched now');
      const kept = numbers.find((taskNumber) => byNumber(taskNumber) !== undefined);
      if (kept !== undefined) return unknown(`task ${kept} is still there`);
      const never = numbers.find((taskNumber) => taskNumber > evidence.lastTaskNumber);
      if (never !== undefined) return unknown(`task ${never} never existed`);
      const deletedNumbers = [...new Set(numbers)];
      return succeeded({ deletedNumbers }, `no task numbered ${deletedNumbers.join(', ')} is left`);
    }
    default:
      return unknown(`the effect of ${tool} cannot be checked`);
  }
}

/** The numbers a delete named: one, several, or (confirmed) the tasks as the question showed them. */
function deletedNumbersOf(args: ToolArguments): number[] | null {
  if (Array.isArray(args.tasks)) {
    const numbers = (args.tasks as unknown[]).map((task) => (task as { number?: unknown } | null)?.number);
    return numbers.every((n): n is number => typeof n === 'number') ? numbers : null;
  }
  if (Array.isArray(args.numbers))
    return (args.numbers as unknown[]).every((n) => typeof n === 'number') ? (args.numbers as number[]) : null;
  return typeof args.number === 'number' ? [args.number] : null;
}

function succeeded(result: Record<string, unknown>, evidence: string): SettledOutcome {
  return { status: 'succeeded', result: { ...result, evidence, settledAfterCrash: true } };
}

function unknown(detail: string): SettledOutcome {
  return {
    status: 'unknown',
    errorCode: 'UNKNOWN_OUTCOME',
    errorMessage: `The call may or may not have changed the list (${detail}); a person should review it.`,
    result: { detail, review: true },
  };
}
