import { joinedWithAnd } from '../../../../domain/shared/words';
import { TASK_STATUS_FILTERS, type TaskStatusFilter } from '../../../../domain/todo/task';
import { unknownOutcome } from '../evidence';
import type { TodoTool } from '../todo-tool';
import { namedTasks, type ResultFields, view } from '../tool-parts';
import { result, taskViews } from '../tool-schemas';

/** Tasks one list_tasks result carries at most, in number order. */
export const LIST_TOOL_MAX = 50;
/** Titles a list sentence names; the rest are counted. */
const LISTED_TITLES_MAX = 5;

/** list_tasks → {status, count, tasks: TaskView[], more?}: the first LIST_TOOL_MAX in number order; `more` says how many of `count` were left out. */
export const listTasksTool = {
  definition: {
    name: 'list_tasks',
    title: 'Read the list',
    intent: 'READ',
    description: "List the person's tasks: all (default), pending or completed.",
    inputSchema: {
      type: 'object',
      properties: { status: { type: 'string', enum: TASK_STATUS_FILTERS } },
      additionalProperties: false,
    },
    outputSchema: result(
      {
        status: { type: 'string', enum: TASK_STATUS_FILTERS },
        count: { type: 'integer', minimum: 0, description: 'How many tasks have this status' },
        tasks: { ...taskViews, maxItems: LIST_TOOL_MAX, description: `The first ${LIST_TOOL_MAX}, in number order` },
        more: { type: 'integer', minimum: 1, description: 'How many of count were left out' },
      },
      ['more'],
    ),
    mutates: false,
    destructive: false,
    sources: ['chat', 'mcp'],
    restTwin: null,
  },
  plan(args, { userId, kit }) {
    const status = (args.status as TaskStatusFilter | undefined) ?? 'all';
    const run = async () => {
      const tasks = await kit.listTasks.execute({ userId, status });
      // The model reads a bounded list; the person's task list (API, console) has them all.
      const shown = tasks.slice(0, LIST_TOOL_MAX);
      return {
        status,
        count: tasks.length,
        tasks: shown.map(view),
        ...(tasks.length > shown.length && { more: tasks.length - shown.length }),
      };
    };
    return Promise.resolve({ items: 1, run });
  },
  sentence: listed,
  // It changes nothing, so it is never audited as pending: there is nothing to settle.
  settle: () => unknownOutcome('the effect of list_tasks cannot be checked'),
  taskChanges: () => [],
  chatRequest: () => null,
} satisfies TodoTool;

function listed(result: ResultFields): string | null {
  if (typeof result.count !== 'number') return null;
  const which = result.status === 'pending' ? 'pending ' : result.status === 'completed' ? 'completed ' : '';
  if (result.count === 0) return `You have no ${which}tasks.`;
  const titles = namedTasks(result.tasks).map((task) => `'${task.title}'`);
  const named =
    titles.length > LISTED_TITLES_MAX ? [...titles.slice(0, LISTED_TITLES_MAX), `${result.count - LISTED_TITLES_MAX} more`] : titles;
  const noun = result.count === 1 ? 'task' : 'tasks';
  return named.length === 0
    ? `You have ${result.count} ${which}${noun}.`
    : `You have ${result.count} ${which}${noun}: ${joinedWithAnd(named)}.`;
}
