import { draftTask, type TaskPriority } from '../../../../domain/todo/task';
import { succeeded, unknownOutcome } from '../evidence';
import type { TodoTool } from '../todo-tool';
import { namedTask, view } from '../tool-parts';
import { description, priority, result, taskView, title } from '../tool-schemas';

/** add_task → {task}. */
export const addTaskTool = {
  definition: {
    name: 'add_task',
    title: 'Add a task',
    intent: 'CREATE',
    description: "Add a task to the person's list.",
    inputSchema: {
      type: 'object',
      properties: { title, description, priority },
      required: ['title'],
      additionalProperties: false,
    },
    outputSchema: result({ task: taskView }),
    mutates: true,
    destructive: false,
    sources: ['chat', 'mcp', 'api'],
    restTwin: 'create',
  },
  plan(args, { userId, kit }) {
    const input = {
      userId,
      title: args.title as string,
      description: args.description as string | undefined,
      priority: args.priority as TaskPriority | undefined,
    };
    return Promise.resolve({ items: 1, run: async () => ({ task: view(await kit.addTask.execute(input)) }) });
  },
  sentence(result) {
    const task = namedTask(result.task);
    return task && `Added '${task.title}' to your list.`;
  },
  /** An add is not idempotent: only a task created while the call could run, and claimed by no other call, counts. */
  settle(call, evidence) {
    const args = call.arguments;
    const draft = draftTask({
      title: typeof args.title === 'string' ? args.title : '',
      description: args.description as string | undefined,
      priority: args.priority as TaskPriority | undefined,
    });
    const from = call.startedAt.getTime();
    const added = evidence.tasks
      .filter(
        (task) =>
          task.title === draft.title &&
          task.description === draft.description &&
          task.priority === draft.priority &&
          task.createdAt.getTime() >= from &&
          task.createdAt.getTime() <= from + call.windowMs &&
          !evidence.claimedTaskNumbers.has(task.number),
      )
      .sort((a, b) => a.number - b.number)[0];
    return added
      ? succeeded({ task: view(added) }, `task ${added.number} has this title and was created while the call could run`)
      : unknownOutcome('no task that this call could have added is there');
  },
  taskChanges(result) {
    const task = namedTask(result.task);
    return task ? [{ kind: 'added', ...task }] : [];
  },
  chatRequest: () => null,
} satisfies TodoTool;
