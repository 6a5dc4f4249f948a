import { CONVERSATION_SUMMARY_PROMPT } from '../../../src/application/chat/conversation-summary.prompt';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { LanguageModelBadRequestError, LanguageModelTimeoutError } from '../../../src/domain/agent/language-model-errors';
import type { AgentMessage } from '../../../src/domain/agent/tools';
import { REPLY_TARGET_CHARS } from '../../../src/domain/agent/limits';
import { OfflineLanguageModel } from '../../../src/infrastructure/llm/offline/offline-language-model';
import { completes, deletes, type Expected, greets, lists, says, updates } from '../../support/offline-model-answers';
import { afterTools, answerOf, milk, request, shown, task, user } from '../../support/offline-model-turns';

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

  describe('reads "the first one" in the most recent list shown', () => {
    it.each(ORDINALS)('%j after %s', async (phrase, _history, messages, expected) => {
      await expect(answerOf(sut, [...messages, user(phrase)])).resolves.toEqual(expected);
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
