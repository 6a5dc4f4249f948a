import { changeTask, type TaskChanges, type TaskPriority } from '../../../../domain/todo/task';
import type { ToolArguments } from '../../../../domain/agent/tool-call-validation';
import { succeeded, taskNumbered, unknownOutcome } from '../evidence';
import type { TodoTool } from '../todo-tool';
import { namedTask, ToolFailure, view } from '../tool-parts';
import { description, priority, query, result, taskNumber, taskView, title } from '../tool-schemas';

const FIELDS = ['title', 'description', 'priority'] as const;

function changesOf(args: ToolArguments): TaskChanges {
  return {
    title: args.title as string | undefined,
    description: args.description as string | undefined,
    priority: args.priority as TaskPriority | undefined,
  };
}

/** update_task → {task, previousTitle, changed: string[]}. */
export const updateTaskTool = {
  definition: {
    name: 'update_task',
    title: 'Change a task',
    intent: 'UPDATE',
    description: "Change one task's title, description or priority, by number or by words from its title.",
    inputSchema: {
      type: 'object',
      properties: { number: taskNumber, query, title, description, priority },
      additionalProperties: false,
    },
    outputSchema: result({
      task: taskView,
      previousTitle: { type: 'string' },
      changed: { type: 'array', items: { type: 'string', enum: [...FIELDS] } },
    }),
    mutates: true,
    destructive: false,
    changesExisting: true,
    sources: ['chat', 'mcp', 'api'],
    restTwin: 'change',
  },
  async plan(args, { userId, kit }) {
    const changes = changesOf(args);
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new ToolFailure('INVALID_ARGUMENTS', 'Say what to change: title, description or priority.');
    }
    const { number } = await kit.resolveOne(userId, args, { preferPending: false });
    const run = async () => {
      const { task, previous } = await kit.updateTask.execute({ userId, number, changes });
      const changed = FIELDS.filter((field) => task[field] !== previous[field]);
      return { task: view(task), previousTitle: previous.title, changed };
    };
    return { items: 1, run };
  },
  sentence(result) {
    const task = namedTask(result.task);
    return task && `Updated task ${task.number}, '${task.title}'.`;
  },
  /** Updating by number leaves a state the call would have left, whoever ran first. */
  settle({ arguments: args, startedAt }, evidence) {
    if (typeof args.number !== 'number') return unknownOutcome('it named its task by words, which cannot be matched now');
    const task = taskNumbered(evidence, args.number);
    if (!task) return unknownOutcome(`task ${args.number} is gone`);
    const changes = changesOf(args);
    const wanted = changeTask(task, changes, startedAt);
    const asked = FIELDS.filter((field) => changes[field] !== undefined);
    if (asked.length === 0 || asked.some((field) => wanted[field] !== task[field])) {
      return unknownOutcome(`task ${task.number} does not hold what the call asked for`);
    }
    return succeeded({ task: view(task) }, `task ${task.number} holds what the call asked for`);
  },
  taskChanges(result) {
    const task = namedTask(result.task);
    if (!task) return [];
    const changed = Array.isArray(result.changed) ? result.changed : [];
    const previousTitle = result.previousTitle;
    if (changed.includes('title') && typeof previousTitle === 'string') return [{ kind: 'renamed', ...task, previousTitle }];
    return changed.length > 0 ? [{ kind: 'changed', ...task }] : [];
  },
  chatRequest: () => null,
} satisfies TodoTool;
