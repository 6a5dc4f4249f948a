import { titlesInBrief } from '../../../domain/agent/confirmation';
import { deletionPrompt } from '../../../domain/todo/deletion';
import { joinedWithAnd } from '../../../domain/shared/words';
import { friendlyToolError } from '../../../domain/agent/failures';
import { TODO_TOOL_ERRORS, WHICH_TASK } from '../../../domain/todo/tool-errors';
import { REPLY_TARGET_CHARS } from '../../../domain/agent/limits';
import type { TaskView } from '../../../application/todo/tools/todo-tool-definitions';
import type { MissingDetail } from './intent';
import type { ToolDefinition } from '../../../domain/agent/tools';

export const GREETING =
  "Hi! I'm Bridle, and I look after your to-do list. I can add tasks, show what's left, mark tasks done, " +
  "change them or delete them. Try 'add buy milk' or 'what's left?'.";

export const HELP = [
  "Here's what I can do with your to-do list:",
  "- Add a task: 'add buy milk' or 'remind me to call mom'",
  "- List your tasks: 'what's on my list?', 'what's left?' or 'what have I done?'",
  "- Complete a task: 'mark task 2 done' or 'I did the milk one'",
  "- Update a task: 'rename task 1 to buy oat milk' or 'make task 3 high priority'",
  "- Delete tasks: 'delete task 2' or 'clear completed tasks'",
].join('\n');

/** "Could you provide more details about <what is missing>?", then how to say it. */
export const MORE_DETAILS: Readonly<Record<MissingDetail, string>> = {
  title: "Could you provide more details about the task's title? For example: 'add buy milk'.",
  new_title: "Could you provide more details about the new title? For example: 'rename task 1 to buy oat milk'.",
  change:
    'Could you provide more details about the change you want: a new title, a description or a priority? ' +
    "For example: 'make task 1 high priority'.",
  task: WHICH_TASK,
  priority: "Could you provide more details about the priority you want: high, medium or low? For example: 'make task 2 high priority'.",
  task_and_priority:
    'Could you provide more details about which task you mean, and the priority you want: high, medium or low? ' +
    "For example: 'make task 2 high priority'.",
};
export const NOTHING_TO_CONFIRM = "There's nothing waiting for your confirmation right now.";
export const OFF_TOPIC = 'Sorry, I can only help with your task list: adding, listing, completing, updating and deleting tasks.';
export const CLARIFY =
  "I'm not sure what you'd like to do. Did you mean to add a task, see your list or change one? You can say things like " +
  "'add buy milk', 'what's left?' or 'mark task 2 done'.";
export const UNAVAILABLE = "I can't do that right now.";

export function outOfRange(shown: number): string {
  const tasks = shown === 1 ? '1 task' : `${shown} tasks`;
  return `The list I showed you has ${tasks}. Which one do you mean?`;
}

/** One tool message as the model reads it. */
export interface ToolOutcome {
  readonly name: string;
  readonly content: string;
  readonly isError: boolean;
}

type Fields = Readonly<Record<string, unknown>>;

function fields(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

/** Unparseable content reads as an empty object, so the reply falls back to a generic sentence. */
export function parsed(content: string): Fields {
  try {
    return fields(JSON.parse(content));
  } catch {
    return {};
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function taskView(value: unknown): TaskView | undefined {
  const task = fields(value);
  if (typeof task.number !== 'number' || typeof task.title !== 'string') return undefined;
  return {
    number: task.number,
    title: task.title,
    description: text(task.description) ?? null,
    priority: text(task.priority) ?? 'medium',
    completed: task.completed === true,
  };
}

export function taskViews(value: unknown): TaskView[] {
  if (!Array.isArray(value)) return [];
  return value.map(taskView).filter((task): task is TaskView => task !== undefined);
}

function taskLine(task: TaskView): string {
  const box = task.completed ? '✓' : '☐';
  const priority = task.priority === 'high' ? ' (high priority)' : '';
  return `${task.number}. ${box} ${task.title}${priority}`;
}

const EMPTY_LIST: Readonly<Record<string, string>> = {
  all: 'Your list is empty.',
  pending: "Nothing left to do. You're all caught up!",
  completed: "You haven't completed any tasks yet.",
};
const LIST_HEADER: Readonly<Record<string, string>> = {
  all: 'Here are your tasks:',
  pending: 'Here are your pending tasks:',
  completed: 'Here are your completed tasks:',
};

/** The list as a reply a person reads at a glance: as many lines as fit, then how many more. */
function listed(result: Fields): string {
  const status = text(result.status) ?? 'all';
  const tasks = taskViews(result.tasks);
  if (tasks.length === 0) return EMPTY_LIST[status] ?? EMPTY_LIST.all;
  const notSent = typeof result.more === 'number' && result.more > 0 ? result.more : 0;
  const moreLine = (more: number) => `…and ${more} more: the task list shows them all.`;
  const lines = [LIST_HEADER[status] ?? LIST_HEADER.all];
  let length = lines[0].length;
  // Room is kept for the "and N more" line whenever one may be needed.
  const room = REPLY_TARGET_CHARS - moreLine(tasks.length + notSent).length - 1;
  for (const [i, task] of tasks.entries()) {
    const line = taskLine(task);
    const last = i === tasks.length - 1 && notSent === 0;
    if (length + 1 + line.length > (last ? REPLY_TARGET_CHARS : room)) break;
    lines.push(line);
    length += 1 + line.length;
  }
  const more = tasks.length - (lines.length - 1) + notSent;
  return [...lines, ...(more > 0 ? [moreLine(more)] : [])].join('\n');
}

/** "Updated! '<title>' now has <changes>." */
function updated(result: Fields): string {
  const task = taskView(result.task);
  if (!task) return 'Updated!';
  const changed = Array.isArray(result.changed) ? result.changed : [];
  const changes: string[] = [];
  if (changed.includes('title')) changes.push(`a new title (it was '${text(result.previousTitle) ?? task.title}')`);
  if (changed.includes('description')) {
    changes.push(task.description === null ? 'no description' : `the description '${task.description}'`);
  }
  if (changed.includes('priority')) changes.push(`${task.priority} priority`);
  if (changes.length === 0) return `'${task.title}' already looked like that, so nothing changed.`;
  return `Updated! '${task.title}' now has ${joinedWithAnd(changes)}.`;
}

function deleted(result: Fields): string {
  if (Array.isArray(result.wouldDelete)) return deletionPrompt(taskViews(result.wouldDelete).map((task) => task.title));
  const titles = taskViews(result.deleted).map((task) => task.title);
  if (titles.length === 0) return 'There was nothing to remove.';
  if (titles.length === 1) return `I've removed '${titles[0]}' from your tasks.`;
  return `I've removed ${titles.length} tasks: ${titlesInBrief(titles)}.`;
}

function succeeded(name: string, result: Fields, title: string | undefined): string {
  const task = taskView(result.task);
  switch (name) {
    case 'add_task':
      return task ? `Got it! Added '${task.title}' to your list.` : 'Got it! Added that to your list.';
    case 'list_tasks':
      return listed(result);
    case 'complete_task':
      if (!task) return 'Done!';
      return result.alreadyCompleted === true ? `'${task.title}' was already complete.` : `Great! I've marked '${task.title}' as complete.`;
    case 'update_task':
      return updated(result);
    case 'delete_task':
      return deleted(result);
    default:
      return generically(title, task);
  }
}

/** A tool it has no words of its own for, by its title: "Done! Snooze a task: 'Dentist'." */
function generically(title: string | undefined, task: TaskView | undefined): string {
  if (title === undefined) return 'Done.';
  return task ? `Done! ${title}: '${task.title}'.` : `Done! ${title}.`;
}

/** The sentence the person reads for a tool's error, the same as its audit row's (TODO_TOOL_ERRORS). */
function failed(error: Fields): string {
  return friendlyToolError({ code: text(error.code) ?? '', details: fields(error.details) }, TODO_TOOL_ERRORS);
}

/**
 * The person-facing answer to the results of one round of tool calls, one sentence each;
 * after adding a task, the assistant asks whether there is anything else.
 */
export function composeReply(outcomes: readonly ToolOutcome[], tools: readonly ToolDefinition[] = []): string {
  const sentences = outcomes.map((outcome) => {
    const result = parsed(outcome.content);
    const title = tools.find((tool) => tool.name === outcome.name)?.title;
    return outcome.isError ? failed(result) : succeeded(outcome.name, result, title);
  });
  const last = outcomes.at(-1);
  const added = last !== undefined && !last.isError && last.name === 'add_task';
  return `${sentences.join('\n')}${added ? ' Anything else?' : ''}`;
}
