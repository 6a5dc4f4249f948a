import type { CompletionRequest } from '../../../src/application/agent/ports/language-model.port';
import { CONVERSATION_SUMMARY_PROMPT } from '../../../src/application/chat/conversation-summary.prompt';
import { TODO_TOOLS, type TaskView } from '../../../src/application/todo/tools/todo-tool-definitions';
import { LanguageModelBadRequestError, LanguageModelTimeoutError } from '../../../src/domain/agent/language-model-errors';
import type { AgentMessage } from '../../../src/domain/agent/tools';
import { REPLY_TARGET_CHARS } from '../../../src/domain/agent/limits';
import { OfflineLanguageModel } from '../../../src/infrastructure/llm/offline/offline-language-model';

const WHICH_TASK =
  "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.";
const TITLE_MISSING = "Could you provide more details about the task's title? For example: 'add buy milk'.";
const NEW_TITLE_MISSING = "Could you provide more details about the new title? For example: 'rename task 1 to buy oat milk'.";
const CHANGE_MISSING =
  'Could you provide more details about the change you want: a new title, a description or a priority? ' +
  "For example: 'make task 1 high priority'.";
const PRIORITY_MISSING =
  "Could you provide more details about the priority you want: high, medium or low? For example: 'make task 2 high priority'.";
const TASK_AND_PRIORITY_MISSING =
  'Could you provide more details about which task you mean, and the priority you want: high, medium or low? ' +
  "For example: 'make task 2 high priority'.";
const NOTHING_TO_CONFIRM = "There's nothing waiting for your confirmation right now.";
const OFF_TOPIC = 'Sorry, I can only help with your task list: adding, listing, completing, updating and deleting tasks.';
const CLARIFY =
  "I'm not sure what you'd like to do. Did you mean to add a task, see your list or change one? You can say things like " +
  "'add buy milk', 'what's left?' or 'mark task 2 done'.";

type Expected = { readonly tool: string; readonly args: Record<string, unknown> } | { readonly text: unknown };

const calls = (tool: string, args: Record<string, unknown>): Expected => ({ tool, args });
const says = (text: unknown): Expected => ({ text });
const greets = says(expect.stringMatching(/^Hi! /));
const helps = says(
  expect.stringMatching(/(?=[\s\S]*add buy milk)(?=[\s\S]*what's left)(?=[\s\S]*mark task 2 done)(?=[\s\S]*rename)(?=[\s\S]*delete)/),
);
const adds = (title: string, priority?: string) => calls('add_task', priority ? { title, priority } : { title });
const lists = (status: string) => calls('list_tasks', { status });
const completes = (args: Record<string, unknown>) => calls('complete_task', args);
const updates = (args: Record<string, unknown>) => calls('update_task', args);
const deletes = (args: Record<string, unknown>) => calls('delete_task', args);

/** What a person may type, and what a good model answers with no list shown yet. */
const PHRASINGS: readonly (readonly [string, Expected])[] = [
  ['hi', greets],
  ['Hello!', greets],
  ['hey there', greets],
  ['Good morning', greets],
  ['howdy', greets],

  ['help', helps],
  ['What can you do?', helps],
  ['how does this work?', helps],
  ['commands', helps],

  ['add buy milk', adds('Buy milk')],
  ['Add a task to buy milk', adds('Buy milk')],
  ['add task call mom', adds('Call mom')],
  ['Create a task called "Renew passport"', adds('Renew passport')],
  ['create task pay rent', adds('Pay rent')],
  ['new task: water the plants', adds('Water the plants')],
  ['remind me to call the dentist', adds('Call the dentist')],
  ['I need to pick up the dry cleaning', adds('Pick up the dry cleaning')],
  ['I have to file my taxes', adds('File my taxes')],
  ['put eggs on my list', adds('Eggs')],
  ["don't let me forget to send the invoice", adds('Send the invoice')],
  ['Please add walk the dog to my list!', adds('Walk the dog')],
  ["add 'Book flights' to the list please", adds('Book flights')],
  ['can you add buy bread?', adds('Buy bread')],
  ['I want to add a reminder to water the garden', adds('Water the garden')],
  ['hi, add buy milk', adds('Buy milk')],
  ['add buy milk with high priority', adds('Buy milk', 'high')],
  ['add an urgent task to call the bank', adds('Call the bank', 'high')],
  ["remind me to renew my passport, it's important", adds('Renew my passport', 'high')],
  ['add water plants, low priority', adds('Water plants', 'low')],
  ['add read important email', adds('Read important email')],
  ['I need to finish the report', adds('Finish the report')],

  ["what's on my list?", lists('all')],
  ['show my tasks', lists('all')],
  ['list tasks', lists('all')],
  ['my todos', lists('all')],
  ['What do I have?', lists('all')],
  ['show me everything', lists('all')],
  ["tell me what's on my list", lists('all')],

  ["what's left?", lists('pending')],
  ["What's pending", lists('pending')],
  ['what do I still have to do?', lists('pending')],
  ['unfinished tasks', lists('pending')],
  ['show open tasks', lists('pending')],
  ['remaining tasks', lists('pending')],
  ["could you show me what's left?", lists('pending')],
  ['can you tell me what I have to do?', lists('pending')],

  ['what have I done?', lists('completed')],
  ['completed tasks', lists('completed')],
  ['show finished tasks', lists('completed')],
  ['show done tasks', lists('completed')],
  ['what did I finish today?', lists('completed')],
  ["what's done?", lists('completed')],

  ['mark task 2 done', completes({ number: 2 })],
  ['mark 2 as done', completes({ number: 2 })],
  ['mark #2 complete', completes({ number: 2 })],
  ['finish number 2', completes({ number: 2 })],
  ['complete task 3', completes({ number: 3 })],
  ['check off task 1', completes({ number: 1 })],
  ['I finished task two', completes({ number: 2 })],
  ['task 4 is done', completes({ number: 4 })],
  ['set task 2 to done', completes({ number: 2 })],
  ['tick off buy milk', completes({ query: 'buy milk' })],
  ['mark the milk one done', completes({ query: 'milk' })],
  ['check the dentist task off', completes({ query: 'dentist' })],
  ['I did the laundry', completes({ query: 'laundry' })],
  ['done with the milk task', completes({ query: 'milk' })],
  ['finish the report', completes({ query: 'report' })],
  ['mark it done', says(WHICH_TASK)],

  ['rename task 1 to buy oat milk', updates({ number: 1, title: 'Buy oat milk' })],
  ['rename the milk task to buy oat milk', updates({ query: 'milk', title: 'Buy oat milk' })],
  ['change task 1 to call grandma', updates({ number: 1, title: 'Call grandma' })],
  ['change the title of task 3 to "Pay rent"', updates({ number: 3, title: 'Pay rent' })],
  ['change the description of task 2 to bring the insurance card', updates({ number: 2, description: 'bring the insurance card' })],
  ['set the description of the dentist task to bring the card', updates({ query: 'dentist', description: 'bring the card' })],
  ['add a note to task 2: bring the card', updates({ number: 2, description: 'bring the card' })],
  ['remove the description from task 2', updates({ number: 2, description: '' })],
  ['make task 3 high priority', updates({ number: 3, priority: 'high' })],
  ['set the priority of the dentist task to low', updates({ query: 'dentist', priority: 'low' })],
  ['mark the report as urgent', updates({ query: 'report', priority: 'high' })],
  ['change task 1 to low priority', updates({ number: 1, priority: 'low' })],
  ['prioritize task 5', updates({ number: 5, priority: 'high' })],

  ['delete task 2', deletes({ number: 2 })],
  ['remove task 2', deletes({ number: 2 })],
  ['erase #4', deletes({ number: 4 })],
  ['delete the task about the dentist', deletes({ query: 'dentist' })],
  ['get rid of the milk one', deletes({ query: 'milk' })],
  ['drop buy milk from my list', deletes({ query: 'buy milk' })],
  ['delete tasks 1 and 3', deletes({ numbers: [1, 3] })],
  ['remove 1, 2 and 4', deletes({ numbers: [1, 2, 4] })],
  ['delete tasks 2-4', deletes({ numbers: [2, 3, 4] })],
  ['I need to delete task 2', deletes({ number: 2 })],
  ['I need to I need to delete task 2', adds('I need to delete task 2')],
  ['delete all completed tasks', deletes({ scope: 'completed' })],
  ['clear completed', deletes({ scope: 'completed' })],
  ['remove the finished ones', deletes({ scope: 'completed' })],
  ['delete everything', deletes({ scope: 'all' })],
  ['delete all my tasks', deletes({ scope: 'all' })],
  ['clear my list', deletes({ scope: 'all' })],
  ['delete it', says(WHICH_TASK)],

  ['delete the first one', says(WHICH_TASK)],
  ['mark the last one done', says(WHICH_TASK)],

  ['yes', says(NOTHING_TO_CONFIRM)],
  ['yes delete', says(NOTHING_TO_CONFIRM)],
  ['no', says(NOTHING_TO_CONFIRM)],
  ['cancel', says(NOTHING_TO_CONFIRM)],
  ['never mind', says(NOTHING_TO_CONFIRM)],

  ["what's the weather like today?", says(OFF_TOPIC)],
  ['tell me a joke', says(OFF_TOPIC)],
  ['who won the football game last night?', says(OFF_TOPIC)],
  ['what is 12 * 7', says(OFF_TOPIC)],
  ['write me a poem about cats', says(OFF_TOPIC)],
  ['give me a recipe for pancakes', says(OFF_TOPIC)],
  ['What is the capital of France?', says(OFF_TOPIC)],

  // a request that leaves out what it needs asks for it
  ['add a task', says(TITLE_MISSING)],
  ['add', says(TITLE_MISSING)],
  ['please create a new task', says(TITLE_MISSING)],
  ['rename task 1 to', says(NEW_TITLE_MISSING)],
  ['rename task 1', says(NEW_TITLE_MISSING)],
  ['change the title of the milk task to', says(NEW_TITLE_MISSING)],
  ['change task 2 to', says(NEW_TITLE_MISSING)],
  ['update task 1', says(CHANGE_MISSING)],
  ['edit the dentist task', says(CHANGE_MISSING)],
  ['rename it to', says(WHICH_TASK)],
  ['update it', says(WHICH_TASK)],
  // a change named alone: which task, never the menu
  ['delete', says(WHICH_TASK)],
  ['complete', says(WHICH_TASK)],
  ['Remove a task, please', says(WHICH_TASK)],
  ['mark as done', says(WHICH_TASK)],
  ['finish the task', says(WHICH_TASK)],
  ['update', says(WHICH_TASK)],
  ['change the priority', says(TASK_AND_PRIORITY_MISSING)],
  ['prioritise', says(TASK_AND_PRIORITY_MISSING)],
  ['change the priority of task 2', says(PRIORITY_MISSING)],
  ['set the priority of task 2 to high', updates({ number: 2, priority: 'high' })],

  ['banana', says(CLARIFY)],
  ['change my mind', says(CLARIFY)],
  ['', says(CLARIFY)],
  // There is no tool to reopen a task; completing it would do the opposite of what was asked.
  ['mark task 2 as not done', says(CLARIFY)],
];

function task(number: number, title: string, overrides: Partial<TaskView> = {}): TaskView {
  return { number, title, description: null, priority: 'medium', completed: false, ...overrides };
}

function request(messages: readonly AgentMessage[], overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return { systemPrompt: 'You are Bridle.', messages, tools: TODO_TOOLS, signal: new AbortController().signal, ...overrides };
}

const user = (content: string): AgentMessage => ({ role: 'user', content });

interface Outcome {
  readonly name: string;
  readonly result?: unknown;
  readonly error?: { readonly code: string; readonly message: string; readonly details?: unknown };
}

/** A user turn, the assistant's tool calls, then one tool message per outcome. */
function afterTools(...outcomes: readonly Outcome[]): AgentMessage[] {
  const toolCalls = outcomes.map((outcome, i) => ({ id: `call-${i}`, name: outcome.name, arguments: '{}' }));
  return [
    user('do it'),
    { role: 'assistant', content: null, toolCalls },
    ...outcomes.map((outcome, i): AgentMessage => ({
      role: 'tool',
      toolCallId: `call-${i}`,
      name: outcome.name,
      content: JSON.stringify(outcome.error ?? outcome.result),
      isError: outcome.error !== undefined,
    })),
  ];
}

function shown(status: string, tasks: readonly TaskView[]): AgentMessage[] {
  return [...afterTools({ name: 'list_tasks', result: { status, count: tasks.length, tasks } }), { role: 'assistant', content: '…' }];
}

const milk = task(1, 'Buy milk');
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

/** A pending list whose positions (1st, 2nd, 3rd) differ from the task numbers (2, 5, 9). */
const pendingShown = shown('pending', [task(2, 'Dentist'), task(5, 'Buy milk'), task(9, 'Call mom')]);

const pendingThenCompleted = [...pendingShown, ...shown('completed', [task(7, 'Pay rent', { completed: true })])];
const pendingThenFailed = [...pendingShown, ...afterTools({ name: 'list_tasks', error: { code: 'TIMEOUT', message: 'too slow' } })];

const ORDINALS: readonly (readonly [string, string, AgentMessage[], Expected])[] = [
  ['mark the first one done', 'a pending list', pendingShown, completes({ number: 2 })],
  ['delete the second one', 'a pending list', pendingShown, deletes({ number: 5 })],
  ['complete the 3rd one', 'a pending list', pendingShown, completes({ number: 9 })],
  ['rename the last one to call grandma', 'a pending list', pendingShown, updates({ number: 9, title: 'Call grandma' })],
  ['make the second task high priority', 'a pending list', pendingShown, updates({ number: 5, priority: 'high' })],
  ['delete the fourth task', 'a pending list', pendingShown, says('The list I showed you has 3 tasks. Which one do you mean?')],
  ['delete the first one', 'a pending, then a completed list', pendingThenCompleted, deletes({ number: 7 })],
  ['delete the first one', 'a pending list, then a failed listing', pendingThenFailed, deletes({ number: 2 })],
];

async function answerOf(sut: OfflineLanguageModel, messages: readonly AgentMessage[], overrides: Partial<CompletionRequest> = {}) {
  const completion = await sut.complete(request(messages, overrides));
  if (completion.finishReason === 'tool_calls') {
    expect(completion.text).toBeNull();
    expect(completion.toolCalls).toHaveLength(1);
    const [call] = completion.toolCalls;
    return { tool: call.name, args: JSON.parse(call.arguments) };
  }
  expect(completion.finishReason).toBe('stop');
  expect(completion.toolCalls).toEqual([]);
  return { text: completion.text };
}

describe(OfflineLanguageModel.name, () => {
  const sut = new OfflineLanguageModel();

  it('keeps a long list within the reply target, saying how many more there are', async () => {
    const tasks = Array.from({ length: 40 }, (_, i) => task(i + 1, `A task with a rather long title, number ${i + 1}`));
    const completion = await sut.complete(
      request(afterTools({ name: 'list_tasks', result: { status: 'all', count: 45, tasks, more: 5 } })),
    );
    const text = completion.text!;
    expect(text.length).toBeLessThanOrEqual(REPLY_TARGET_CHARS);
    const shownLines = text.split('\n').filter((line) => /^\d+\. /.test(line));
    expect(shownLines.length).toBeGreaterThan(3);
    expect(text.split('\n').at(-1)).toBe(`…and ${45 - shownLines.length} more: the task list shows them all.`);
  });

  it('streams its answer word by word, the pieces joined being the answer', async () => {
    const pieces: string[] = [];
    const completion = await sut.stream(request([{ role: 'user', content: 'hello' }]), (piece) => pieces.push(piece));
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(completion.text);
  });

  it('paces the words of a streamed answer, and stops pacing once the turn is over', async () => {
    const paced = new OfflineLanguageModel(25);
    // What the stream does, in order: a word handed on, or a pause of 25 ms begun.
    const steps: string[] = [];
    const setTimer = globalThis.setTimeout;
    const timers = jest.spyOn(globalThis, 'setTimeout').mockImplementation((handler: () => void, ms?: number) => {
      if (ms === 25) steps.push('pause');
      return setTimer(handler, ms);
    });
    try {
      const completion = await paced.stream(request([{ role: 'user', content: 'hello' }]), () => steps.push('word'));
      const words = completion.text!.match(/\s*\S+\s*/g)!.length;
      expect(words).toBeGreaterThan(5);
      expect(steps).toEqual(['word', ...Array.from({ length: words - 1 }, () => ['pause', 'word']).flat()]);

      // The turn ends after the first word: the rest follows with no pause, the answer still whole.
      steps.length = 0;
      const turn = new AbortController();
      const pieces: string[] = [];
      const whole = await paced.stream(request([{ role: 'user', content: 'hello' }], { signal: turn.signal }), (piece) => {
        pieces.push(piece);
        steps.push('word');
        turn.abort();
      });
      expect(pieces.join('')).toBe(whole.text);
      expect(steps).toEqual(pieces.map(() => 'word'));
    } finally {
      timers.mockRestore();
    }
  });

  it('names itself', () => {
    expect(sut.provider).toBe('offline');
    expect(sut.model).toBe('bridle-offline-1');
  });

  describe('understands a user sentence', () => {
    it.each(PHRASINGS)('%j', async (phrase, expected) => {
      await expect(answerOf(sut, [user(phrase)])).resolves.toEqual(expected);
    });
  });

  describe('reads "the first one" in the most recent list shown', () => {
    it.each(ORDINALS)('%j after %s', async (phrase, _history, messages, expected) => {
      await expect(answerOf(sut, [...messages, user(phrase)])).resolves.toEqual(expected);
    });
  });

  describe('composes the reply from tool results', () => {
    it.each(REPLIES)('%s', async (_kind, messages, expected) => {
      await expect(answerOf(sut, messages)).resolves.toEqual({ text: expected });
    });
  });

  it('answers the new user sentence, not results from an earlier turn', async () => {
    const messages = [...afterTools({ name: 'add_task', result: { task: milk } }), { role: 'assistant', content: 'Added.' } as const];
    await expect(answerOf(sut, [...messages, user("what's left?")])).resolves.toEqual(lists('pending'));
  });

  it('gives deterministic tool call ids and a rough token count', async () => {
    const messages = [user('hello'), { role: 'assistant', content: 'Hi!' } as const, user('add buy milk')];
    const first = await sut.complete(request(messages));
    const second = await sut.complete(request(messages));
    expect(second).toEqual(first);
    expect(first.toolCalls).toEqual([{ id: 'offline-3-0', name: 'add_task', arguments: '{"title":"Buy milk"}' }]);
    const promptChars = 'You are Bridle.'.length + 'hello'.length + 'Hi!'.length + 'add buy milk'.length;
    const answerChars = 'add_task'.length + '{"title":"Buy milk"}'.length;
    expect(first.usage).toEqual({ promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(answerChars / 4) });
  });

  it.each([
    ['finish 1, 2, 3 and 4', [1, 2, 3, 4]],
    ['complete tasks 3 to 6', [3, 4, 5, 6]],
    ['mark 2 and 5 as done', [2, 5]],
    ['mark tasks 2 and 3 done', [2, 3]],
  ])('completes several tasks named by number in one batch: %j', async (phrase, numbers) => {
    const completion = await sut.complete(request([user(phrase)]));
    expect(completion.finishReason).toBe('tool_calls');
    expect(completion.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual(
      numbers.map((number) => ['complete_task', { number }]),
    );
    expect(new Set(completion.toolCalls.map((call) => call.id)).size).toBe(numbers.length);
  });

  it('only calls tools it was offered', async () => {
    const withoutDelete = TODO_TOOLS.filter((tool) => tool.name !== 'delete_task');
    await expect(answerOf(sut, [user('delete task 2')], { tools: withoutDelete })).resolves.toEqual(says("I can't do that right now."));
    await expect(answerOf(sut, [user('add buy milk')], { tools: [] })).resolves.toEqual(says("I can't do that right now."));
    await expect(answerOf(sut, [user('add buy milk')], { options: { toolChoice: 'none' } })).resolves.toEqual(
      says("I can't do that right now."),
    );
    await expect(answerOf(sut, [user('hi')], { tools: [] })).resolves.toEqual(greets);
  });

  it('refuses JSON mode except for outreach planning', async () => {
    await expect(sut.complete(request([user('add buy milk')], { options: { jsonMode: true } }))).rejects.toThrow(
      new LanguageModelBadRequestError('The offline model answers in JSON mode only for outreach planning'),
    );
  });

  it('gives up when the turn is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(sut.complete(request([user('add buy milk')], { signal: controller.signal }))).rejects.toThrow(LanguageModelTimeoutError);
  });

  it('needs a user message or tool results to answer', async () => {
    await expect(sut.complete(request([]))).rejects.toThrow(LanguageModelBadRequestError);
    await expect(sut.complete(request([user('hi'), { role: 'assistant', content: 'Hi!' }]))).rejects.toThrow(LanguageModelBadRequestError);
  });

  it('summarises what was asked and done, folding the summary so far in whole', async () => {
    const transcript = [
      'Summary so far: The person sent 1 message: "add milk". Added 1 task: task 1 "Milk".',
      '',
      'Person: finish task 1',
      'Done: completed task 1 "Milk".',
      "Assistant: Marked 'Milk' as complete.",
    ].join('\n');

    const completion = await sut.complete(request([user(transcript)], { systemPrompt: CONVERSATION_SUMMARY_PROMPT, tools: [] }));

    expect(completion.text).toBe(
      'The person sent 2 messages: "add milk" and "finish task 1". Added 1 task: task 1 "Milk". Completed 1 task: task 1 "Milk".',
    );
  });
});
