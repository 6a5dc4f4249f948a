import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerCapabilities,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { GetTaskUseCase } from '../../application/todo/get-task.use-case';
import type { ListTasksUseCase } from '../../application/todo/list-tasks.use-case';
import type { TaskChanges } from '../../application/todo/ports/task-changes.port';
import type { Task } from '../../domain/todo/task';
import { TaskNotFoundError } from '../../domain/todo/task';
import { TaskResponseDto } from '../http/todo/task.dto';
import { MAX_SUBSCRIPTIONS, type SessionSubscriptions, SubscriptionsFullError } from './mcp-sessions';

export const TASKS_URI = 'bridle://tasks';
const TASK_URI = /^bridle:\/\/tasks\/([1-9][0-9]{0,8})$/;

/** Whether `uri` names one of Bridle's resources: the list, or one task by number (that task may not exist). */
export function isTaskResourceUri(uri: string): boolean {
  return uri === TASKS_URI || TASK_URI.test(uri);
}

export const TASK_RESOURCE_CAPABILITIES: ServerCapabilities = {
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
};

export interface TaskReads {
  readonly listTasks: ListTasksUseCase;
  readonly getTask: GetTaskUseCase;
  readonly changes: TaskChanges;
}

/**
 * The person's tasks as MCP resources and the prompts built on them, for one server of one
 * user (a session's copy, or a stateless request's). `bridle://tasks` is the list,
 * `bridle://tasks/{number}` one task, both JSON in the REST API's shape. A session's
 * subscriptions are kept with the session (every copy of it knows them); whichever copy
 * holds the client's event stream tells it `notifications/resources/updated` when the
 * person's tasks change, on any replica. A stateless request has no stream: its subscribe is
 * checked and answered, and nothing is kept.
 * @returns what to call when the server closes: ends its subscriptions.
 */
export function serveTaskResources(server: Server, userId: string, reads: TaskReads, subscriptions?: SessionSubscriptions): () => void {
  const unsubscribe = subscriptions
    ? reads.changes.subscribe(userId, () => {
        for (const uri of subscriptions.current) void server.sendResourceUpdated({ uri }).catch(() => undefined);
      })
    : () => undefined;

  const handlers = taskReadHandlers(userId, reads);
  server.setRequestHandler(ListResourcesRequestSchema, () => handlers.listResources());
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => handlers.listResourceTemplates());
  server.setRequestHandler(ReadResourceRequestSchema, (request) => handlers.readResource(request.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, () => handlers.listPrompts());
  server.setRequestHandler(GetPromptRequestSchema, (request) => handlers.getPrompt(request.params.name, request.params.arguments));

  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri !== TASKS_URI) await findTask(reads, userId, uri);
    try {
      await subscriptions?.change(uri, true);
    } catch (error) {
      if (error instanceof SubscriptionsFullError) {
        throw new McpError(ErrorCode.InvalidRequest, `A session holds at most ${MAX_SUBSCRIPTIONS} subscriptions: unsubscribe first`);
      }
      throw error;
    }
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await subscriptions?.change(request.params.uri, false);
    return {};
  });
  return unsubscribe;
}

/**
 * The resources' and prompts' answers for one person, the same in both MCP eras (the 2026 one
 * is served in modern/modern-mcp-server.ts).
 */
export function taskReadHandlers(userId: string, reads: Omit<TaskReads, 'changes'>) {
  const listResources = async () => {
    const tasks = await reads.listTasks.execute({ userId, status: 'all' });
    return {
      resources: [
        {
          uri: TASKS_URI,
          name: 'tasks',
          title: 'Your tasks',
          description: `All ${tasks.length} of your tasks`,
          mimeType: 'application/json',
        },
        ...tasks
          .slice(0, 100)
          .map((task) => ({ uri: taskUri(task), name: `task-${task.number}`, title: task.title, mimeType: 'application/json' })),
      ],
    };
  };

  const listResourceTemplates = () => ({
    resourceTemplates: [
      {
        uriTemplate: `${TASKS_URI}/{number}`,
        name: 'task',
        title: 'One of your tasks',
        description: 'A task by its number, as the task list and the tools number them',
        mimeType: 'application/json',
      },
    ],
  });

  const readResource = async (uri: string) => {
    if (uri === TASKS_URI) {
      const tasks = await reads.listTasks.execute({ userId, status: 'all' });
      return {
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ tasks: tasks.map((task) => TaskResponseDto.of(task)) }) }],
      };
    }
    const task = await findTask(reads, userId, uri);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(TaskResponseDto.of(task)) }] };
  };

  return {
    listResources,
    listResourceTemplates,
    readResource,
    listPrompts: () => ({ prompts: PROMPTS }),
    getPrompt: promptGetter(userId, reads),
  };
}

const PROMPTS = [
  {
    name: 'plan_my_day',
    title: 'Plan my day',
    description: 'Proposes an order for your open tasks, most important first, with your tasks attached',
    arguments: [{ name: 'focus', description: 'What the day is for, in a few words (optional)', required: false }],
  },
  {
    name: 'tidy_up',
    title: 'Tidy up my list',
    description: 'Finds completed and duplicate tasks to remove; deleting still asks you first',
    arguments: [],
  },
];

function promptGetter(userId: string, reads: Omit<TaskReads, 'changes'>) {
  return async (name: string, args: Record<string, string> = {}): Promise<GetPromptResult> => {
    const unknown = Object.keys(args).filter(
      (key) => !(PROMPTS.find((prompt) => prompt.name === name)?.arguments ?? []).some((a) => a.name === key),
    );
    if (!PROMPTS.some((prompt) => prompt.name === name)) throw new McpError(ErrorCode.InvalidParams, `There is no prompt named "${name}"`);
    if (unknown.length > 0) throw new McpError(ErrorCode.InvalidParams, `The prompt ${name} takes no argument ${unknown.join(', ')}`);
    const focus = (args.focus ?? '').trim();
    if (focus.length > 200) throw new McpError(ErrorCode.InvalidParams, 'focus must be at most 200 characters');

    const tasks = await reads.listTasks.execute({ userId, status: 'all' });
    const attached = {
      type: 'resource' as const,
      resource: {
        uri: TASKS_URI,
        mimeType: 'application/json',
        text: JSON.stringify({ tasks: tasks.map((task) => TaskResponseDto.of(task)) }),
      },
    };
    const ask =
      name === 'plan_my_day'
        ? 'Here are my tasks. Propose an order for the open ones today, most important first, in a short numbered list ' +
          `with one line on why for each.${focus ? ` Today is for: ${JSON.stringify(focus)}.` : ''} Change nothing yet.`
        : 'Here are my tasks. Find the completed ones and any that look like duplicates, and propose which to delete. ' +
          'Delete nothing until I say which: use delete_task only for the ones I pick.';
    return {
      description: PROMPTS.find((prompt) => prompt.name === name)!.description,
      messages: [
        { role: 'user', content: attached },
        { role: 'user', content: { type: 'text', text: ask } },
      ],
    };
  };
}

function taskUri(task: Task): string {
  return `${TASKS_URI}/${task.number}`;
}

/**
 * Another person's task and a missing one answer alike: not found. Both errors name the URI
 * asked for (`data.uri`). A 2026-07-28 client gets -32602 for both: the SDK 2.x sends the 2025
 * code -32002 as -32602 there.
 */
async function findTask(reads: Omit<TaskReads, 'changes'>, userId: string, uri: string): Promise<Task> {
  const match = TASK_URI.exec(uri);
  if (!match) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: expected ${TASKS_URI} or ${TASKS_URI}/{number}`, { uri });
  try {
    return await reads.getTask.execute({ userId, number: Number(match[1]) });
  } catch (error) {
    if (error instanceof TaskNotFoundError) throw new McpError(-32002, `No task ${match[1]}`, { uri });
    throw error;
  }
}
