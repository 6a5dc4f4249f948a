import { succeeded, taskNumbered, unknownOutcome } from '../evidence';
import type { TodoTool } from '../todo-tool';
import { namedTask, view } from '../tool-parts';
import { query, result, taskNumber, taskView } from '../tool-schemas';

/** complete_task → {task, alreadyCompleted}. */
export const completeTaskTool = {
  definition: {
    name: 'complete_task',
    title: 'Complete a task',
    intent: 'COMPLETE',
    description: 'Mark one task as done, by number or by words from its title.',
    inputSchema: {
      type: 'object',
      properties: { number: taskNumber, query },
      additionalProperties: false,
    },
    outputSchema: result({
      task: taskView,
      alreadyCompleted: { type: 'boolean', description: 'It was done before this call: nothing changed' },
    }),
    mutates: true,
    destructive: false,
    changesExisting: true,
    sources: ['chat', 'mcp', 'api'],
    restTwin: 'complete',
  },
  async plan(args, { userId, kit }) {
    const { number } = await kit.resolveOne(userId, args, { preferPending: true });
    const run = async () => {
      const { task, alreadyCompleted } = await kit.completeTask.execute({ userId, number });
      return { task: view(task), alreadyCompleted };
    };
    return { items: 1, run };
  },
  sentence(result) {
    const task = namedTask(result.task);
    if (!task) return null;
    return result.alreadyCompleted === true ? `'${task.title}' was already complete.` : `Marked '${task.title}' as complete.`;
  },
  /** Completing by number leaves a state the call would have left, whoever ran first. */
  settle({ arguments: args, startedAt }, evidence) {
    if (typeof args.number !== 'number') return unknownOutcome('it named its task by words, which cannot be matched now');
    const task = taskNumbered(evidence, args.number);
    if (!task?.completed) return unknownOutcome(`task ${args.number} is ${task ? 'not completed' : 'gone'}`);
    const alreadyCompleted = task.completedAt !== null && task.completedAt.getTime() < startedAt.getTime();
    return succeeded({ task: view(task), alreadyCompleted }, `task ${task.number} is completed`);
  },
  taskChanges(result) {
    const task = namedTask(result.task);
    return task && result.alreadyCompleted !== true ? [{ kind: 'completed', ...task }] : [];
  },
  chatRequest: () => null,
} satisfies TodoTool;
