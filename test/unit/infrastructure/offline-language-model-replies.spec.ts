import type { AgentMessage } from '../../../src/domain/agent/tools';
import { OfflineLanguageModel } from '../../../src/infrastructure/llm/offline/offline-language-model';
import { WHICH_TASK } from '../../support/offline-model-answers';
import { afterTools, answerOf, milk, task } from '../../support/offline-model-turns';

const dentist = task(2, 'Dentist');

/** Tool results (or errors) of the last assistant message → the sentence the person reads. */
const REPLIES: readonly (readonly [string, AgentMessage[], string])[] = [
  ['add_task', afterTools({ name: 'add_task', result: { task: milk } }), "Got it! Added 'Buy milk' to your list. Anything else?"],
  ['list_tasks, all, empty', afterTools({ name: 'list_tasks', result: { status: 'all', count: 0, tasks: [] } }), 'Your list is empty.'],
  [
    'list_tasks, pending, empty',
    afterTools({ name: 'list_tasks', result: { status: 'pending', count: 0, tasks: [] } }),
    "Nothing left to do. You're all caught up!",
  ],
  [
    'list_tasks, completed, empty',
    afterTools({ name: 'list_tasks', result: { status: 'completed', count: 0, tasks: [] } }),
    "You haven't completed any tasks yet.",
  ],
  [
    'list_tasks, all, by number and title only (an id in the result is never shown)',
    afterTools({
      name: 'list_tasks',
      result: {
        status: 'all',
        count: 3,
        tasks: [
          { ...task(1, 'Buy milk', { priority: 'high' }), id: '3f7c1a52-1111-4222-8333-944455556666' },
          task(3, 'Call mom', { completed: true }),
          task(4, 'Water plants', { priority: 'low', description: 'The ferns too' }),
        ],
      },
    }),
    'Here are your tasks:\n1. ☐ Buy milk (high priority)\n3. ✓ Call mom\n4. ☐ Water plants',
  ],
  [
    'list_tasks, pending',
    afterTools({ name: 'list_tasks', result: { status: 'pending', count: 1, tasks: [dentist] } }),
    'Here are your pending tasks:\n2. ☐ Dentist',
  ],
  [
    'list_tasks, cut short for the model',
    afterTools({ name: 'list_tasks', result: { status: 'pending', count: 3, tasks: [dentist], more: 2 } }),
    'Here are your pending tasks:\n2. ☐ Dentist\n…and 2 more: the task list shows them all.',
  ],
  [
    'list_tasks, completed',
    afterTools({
      name: 'list_tasks',
      result: { status: 'completed', count: 1, tasks: [task(3, 'Call mom', { completed: true, priority: 'high' })] },
    }),
    'Here are your completed tasks:\n3. ✓ Call mom (high priority)',
  ],
  [
    'complete_task',
    afterTools({ name: 'complete_task', result: { task: { ...milk, completed: true }, alreadyCompleted: false } }),
    "Great! I've marked 'Buy milk' as complete.",
  ],
  [
    'complete_task, already complete',
    afterTools({ name: 'complete_task', result: { task: { ...milk, completed: true }, alreadyCompleted: true } }),
    "'Buy milk' was already complete.",
  ],
  [
    'update_task, title',
    afterTools({
      name: 'update_task',
      result: { task: task(1, 'Buy oat milk'), previousTitle: 'Buy milk', changed: ['title'] },
    }),
    "Updated! 'Buy oat milk' now has a new title (it was 'Buy milk').",
  ],
  [
    'update_task, description',
    afterTools({
      name: 'update_task',
      result: { task: task(2, 'Dentist', { description: 'Bring the card' }), previousTitle: 'Dentist', changed: ['description'] },
    }),
    "Updated! 'Dentist' now has the description 'Bring the card'.",
  ],
  [
    'update_task, description removed',
    afterTools({ name: 'update_task', result: { task: dentist, previousTitle: 'Dentist', changed: ['description'] } }),
    "Updated! 'Dentist' now has no description.",
  ],
  [
    'update_task, priority',
    afterTools({
      name: 'update_task',
      result: { task: task(2, 'Dentist', { priority: 'high' }), previousTitle: 'Dentist', changed: ['priority'] },
    }),
    "Updated! 'Dentist' now has high priority.",
  ],
  [
    'update_task, title and priority',
    afterTools({
      name: 'update_task',
      result: {
        task: task(1, 'Buy oat milk', { priority: 'low' }),
        previousTitle: 'Buy milk',
        changed: ['title', 'priority'],
      },
    }),
    "Updated! 'Buy oat milk' now has a new title (it was 'Buy milk') and low priority.",
  ],
  ['delete_task, one', afterTools({ name: 'delete_task', result: { deleted: [milk] } }), "I've removed 'Buy milk' from your tasks."],
  [
    'delete_task, several',
    afterTools({ name: 'delete_task', result: { deleted: [task(1, 'A'), task(2, 'B'), task(3, 'C')] } }),
    "I've removed 3 tasks: 'A', 'B' and 'C'.",
  ],
  [
    'TASK_NOT_FOUND by query',
    afterTools({
      name: 'complete_task',
      error: { code: 'TASK_NOT_FOUND', message: 'not found', details: { query: 'dentist' } },
    }),
    "I couldn't find a task about 'dentist' in your list. Say 'show my tasks' to see what's on it.",
  ],
  [
    'TASK_NOT_FOUND by number',
    afterTools({ name: 'delete_task', error: { code: 'TASK_NOT_FOUND', message: 'Task 7 was not found', details: { number: 7 } } }),
    "I couldn't find task 7 in your list. Say 'show my tasks' to see their numbers.",
  ],
  [
    'AMBIGUOUS_TASK',
    afterTools({
      name: 'complete_task',
      error: {
        code: 'AMBIGUOUS_TASK',
        message: "More than one task matches 'milk'.",
        details: { query: 'milk', candidates: [milk, task(4, 'Buy oat milk')] },
      },
    }),
    "I found multiple tasks about 'milk'. Which one: 1. Buy milk or 4. Buy oat milk?",
  ],
  ['MISSING_TARGET', afterTools({ name: 'update_task', error: { code: 'MISSING_TARGET', message: 'Say which task.' } }), WHICH_TASK],
  [
    'INVALID_ARGUMENTS',
    afterTools({
      name: 'add_task',
      error: { code: 'INVALID_ARGUMENTS', message: 'title must be 1 to 200 characters long', details: { field: 'title' } },
    }),
    "I couldn't understand that request. Please try rephrasing.",
  ],
  [
    'INVALID_ARGUMENTS, a title past its schema length',
    afterTools({
      name: 'add_task',
      error: {
        code: 'INVALID_ARGUMENTS',
        message: 'arguments.title must be at most 200 characters long',
        details: { field: 'title', rule: 'too_long', limit: 200 },
      },
    }),
    'That title is too long: 200 characters at most.',
  ],
  [
    'TASK_LIMIT_REACHED',
    afterTools({ name: 'add_task', error: { code: 'TASK_LIMIT_REACHED', message: 'You already have 500 tasks', details: { limit: 500 } } }),
    'Your list is full: it holds at most 500 tasks. Delete some to make room.',
  ],
  [
    'UNKNOWN_TOOL',
    afterTools({ name: 'archive_task', error: { code: 'UNKNOWN_TOOL', message: 'There is no tool named "archive_task".' } }),
    "I couldn't do that. Please try rephrasing your request.",
  ],
  [
    'several results, one line each, in call order',
    afterTools(
      { name: 'add_task', result: { task: milk } },
      { name: 'complete_task', error: { code: 'TASK_NOT_FOUND', message: 'Task 9 was not found', details: { number: 9 } } },
      { name: 'add_task', result: { task: dentist } },
    ),
    "Got it! Added 'Buy milk' to your list.\nI couldn't find task 9 in your list. Say 'show my tasks' to see their numbers.\n" +
      "Got it! Added 'Dentist' to your list. Anything else?",
  ],
];

describe(OfflineLanguageModel.name, () => {
  const sut = new OfflineLanguageModel();

  describe('composes the reply from tool results', () => {
    it.each(REPLIES)('%s', async (_kind, messages, expected) => {
      await expect(answerOf(sut, messages)).resolves.toEqual({ text: expected });
    });
  });
});
