import { CONFIRMATION_STALE } from '../../../../domain/agent/confirmation';
import type { ToolArguments } from '../../../../domain/agent/tool-call-validation';
import { joinedWithAnd } from '../../../../domain/shared/words';
import { changesSinceShown, deletionPrompt, type ShownTask, sinceAsked } from '../../../../domain/todo/deletion';
import { TASKS_PER_USER_MAX, type Task } from '../../../../domain/todo/task';
import type { DryRunResult } from '../../../agent/ports/toolbox.port';
import { succeeded, taskNumbered, unknownOutcome } from '../evidence';
import type { TodoCall, TodoTool } from '../todo-tool';
import { namedTasks, shownTask, ToolFailure, view } from '../tool-parts';
import { query, result, taskNumber, taskViews, title } from '../tool-schemas';

/** Enough for what a person names in one sentence; a confirmed deletion may cover the whole list. */
const NUMBERS_PER_CALL_MAX = 100;

/**
 * delete_task → {deleted: TaskView[]}, all named tasks or none; in a dry run {wouldDelete: TaskView[]}.
 * Its description ends with a sentence per channel (what the server does with a destructive
 * call there), added where the tools are served.
 */
export const deleteTaskTool = {
  definition: {
    name: 'delete_task',
    title: 'Delete tasks',
    intent: 'DELETE',
    description:
      'Delete tasks: one by number or by words from its title, several by numbers, or every ' +
      'completed task (scope "completed") or every task (scope "all").',
    inputSchema: {
      type: 'object',
      properties: {
        number: taskNumber,
        numbers: { type: 'array', items: taskNumber, minItems: 1, maxItems: NUMBERS_PER_CALL_MAX },
        query,
        scope: { type: 'string', enum: ['completed', 'all'] },
      },
      additionalProperties: false,
    },
    // The tasks exactly as the question showed them: deleted only if each still holds that title.
    // `numbers` is what confirmations stored before titles were kept.
    confirmedInputSchema: {
      type: 'object',
      properties: {
        tasks: {
          type: 'array',
          items: {
            type: 'object',
            properties: { number: taskNumber, title },
            required: ['number', 'title'],
            additionalProperties: false,
          },
          minItems: 1,
          maxItems: TASKS_PER_USER_MAX,
        },
        numbers: { type: 'array', items: taskNumber, minItems: 1, maxItems: TASKS_PER_USER_MAX },
      },
      additionalProperties: false,
    },
    outputSchema: result({ deleted: { ...taskViews, description: 'Every task the call named: all of them or none' } }),
    mutates: true,
    destructive: true,
    sources: ['chat', 'mcp', 'api'],
    restTwin: 'delete',
  },
  async plan(args, call) {
    // Only a confirmed call carries `tasks` (the schema a model sees has no such field): the tasks as the question showed them.
    if (Array.isArray(args.tasks)) {
      const shown = args.tasks as ShownTask[];
      return {
        items: new Set(shown.map((task) => task.number)).size,
        run: ({ dryRun }) => {
          if (dryRun) throw new ToolFailure('INVALID_ARGUMENTS', 'A confirmed deletion is not asked about again.');
          return deleteConfirmed(call, shown);
        },
      };
    }
    const scope = args.scope === 'all' || args.scope === 'completed' ? args.scope : undefined;
    const targets = await call.kit.resolveMany(call.userId, args);
    return {
      items: targets.length,
      run: ({ dryRun }) => (dryRun ? Promise.resolve(deletionToConfirm(targets, scope)) : deleteResolved(call, targets)),
    };
  },
  sentence(result) {
    const deleted = namedTasks(result.deleted);
    if (deleted.length === 1) return `Deleted '${deleted[0].title}'.`;
    return deleted.length > 1 ? `Deleted ${deleted.length} tasks.` : null;
  },
  /** Deleting by number leaves a state the call would have left, whoever ran first. */
  settle({ arguments: args }, evidence) {
    const numbers = deletedNumbersOf(args);
    if (numbers === null) return unknownOutcome('it named its tasks by words or by scope, which cannot be matched now');
    const kept = numbers.find((taskNumber) => taskNumbered(evidence, taskNumber) !== undefined);
    if (kept !== undefined) return unknownOutcome(`task ${kept} is still there`);
    const never = numbers.find((taskNumber) => taskNumber > evidence.lastTaskNumber);
    if (never !== undefined) return unknownOutcome(`task ${never} never existed`);
    const deletedNumbers = [...new Set(numbers)];
    return succeeded({ deletedNumbers }, `no task numbered ${deletedNumbers.join(', ')} is left`);
  },
  // `deleted`; a dry run's `wouldDelete` deleted nothing.
  taskChanges: (result) => namedTasks(result.deleted).map((gone) => ({ kind: 'deleted', ...gone })),
  chatRequest(args) {
    const numbers =
      typeof args.number === 'number' ? [args.number] : Array.isArray(args.numbers) ? [...new Set(args.numbers as number[])] : [];
    if (numbers.length === 1) return `delete task ${numbers[0]}`;
    if (numbers.length > 1) return `delete tasks ${joinedWithAnd(numbers.map(String))}`;
    if (args.scope === 'all') return 'delete everything';
    if (args.scope === 'completed') return 'delete all completed tasks';
    return typeof args.query === 'string' ? `delete ${args.query}` : null;
  },
} satisfies TodoTool;

/**
 * Named in this very call (an MCP client its operator trusts, or a confirmation stored with
 * numbers only): deleted as resolved, all or none.
 */
async function deleteResolved({ userId, kit }: TodoCall, resolved: readonly Task[]): Promise<unknown> {
  const targets = resolved.map(shownTask);
  const outcome = await kit.deleteTasks.execute({ userId, shown: targets });
  if (!outcome.deleted) {
    throw new ToolFailure(
      'TASKS_CHANGED',
      'The tasks changed while they were being deleted, so nothing was deleted; look at the list again.',
      changesSinceShown(targets, outcome.current),
    );
  }
  return { deleted: outcome.tasks.map(view) };
}

/**
 * The question, and the call to run on "yes": the tasks with the titles the question shows,
 * so that "yes" deletes what the person saw or nothing.
 */
function deletionToConfirm(targets: readonly Task[], scope?: 'all' | 'completed'): DryRunResult {
  return {
    prompt: deletionPrompt(
      targets.map((task) => task.title),
      scope,
    ),
    arguments: { tasks: targets.map(shownTask) },
    preview: { wouldDelete: targets.map(view) },
  };
}

/** The person's yes covers the tasks as shown: if any changed, nothing is deleted and they are asked again. */
async function deleteConfirmed({ userId, kit }: TodoCall, shown: readonly ShownTask[]): Promise<unknown> {
  const outcome = await kit.deleteTasks.execute({ userId, shown });
  if (outcome.deleted) return { deleted: outcome.tasks.map(view) };
  const changes = changesSinceShown(shown, outcome.current);
  const said = `${sinceAsked(changes)}, so I deleted nothing.`;
  const askAgain = outcome.current.length > 0 ? deletionToConfirm(outcome.current) : null;
  const message = askAgain ? `${said} ${askAgain.prompt}` : said;
  throw new ToolFailure(CONFIRMATION_STALE, message, {
    ...changes,
    askAgain: askAgain && { ...askAgain, prompt: message },
  });
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
