import type { CompletionRequest } from '../../../src/application/agent/ports/language-model.port';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import type { AgentMessage, ToolDefinition } from '../../../src/domain/agent/tools';
import { WHICH_TASK } from '../../../src/domain/todo/tool-errors';
import { OfflineLanguageModel } from '../../../src/infrastructure/llm/offline/offline-language-model';
import { CLARIFY } from '../../../src/infrastructure/llm/offline/replies';
import { snoozeTaskTool } from '../../fixtures/snooze-task.tool';

/** A tool with a required choice, to show arguments read from its schema. */
const TAG_TASK: ToolDefinition = {
  name: 'tag_task',
  title: 'Tag a task',
  description: 'Tag one task.',
  inputSchema: {
    type: 'object',
    properties: { number: { type: 'integer' }, colour: { type: 'string', enum: ['red', 'green'] } },
    required: ['number', 'colour'],
    additionalProperties: false,
  },
  mutates: true,
  destructive: false,
};

const TOOLS = [...TODO_TOOLS, snoozeTaskTool.definition, TAG_TASK];

function ask(messages: readonly AgentMessage[], tools: readonly ToolDefinition[] = TOOLS) {
  const request: CompletionRequest = { systemPrompt: 'You are Bridle.', messages, tools, signal: new AbortController().signal };
  return new OfflineLanguageModel().complete(request);
}

const user = (content: string): AgentMessage => ({ role: 'user', content });
const calls = (tool: string, args: object) => ({
  text: null,
  toolCalls: [{ id: 'offline-1-0', name: tool, arguments: JSON.stringify(args) }],
});

describe('the offline model calls an offered tool it has no intent for by the tool’s own words', () => {
  it.each([
    ['snooze task 2', { number: 2 }],
    ['please snooze the dentist task', { query: 'dentist' }],
    ['Snooze #3.', { number: 3 }],
  ])('%s → snooze_task %j', async (said, args) => {
    await expect(ask([user(said)])).resolves.toMatchObject(calls('snooze_task', args));
  });

  it('fills a choice from a word that is one of its values, and asks for a required one the words leave out', async () => {
    await expect(ask([user('tag task 4 green')])).resolves.toMatchObject(calls('tag_task', { colour: 'green', number: 4 }));
    await expect(ask([user('tag task 4')])).resolves.toMatchObject({ text: 'Could you provide more details about the colour?' });
  });

  it('asks which task when the words name none', async () => {
    await expect(ask([user('snooze')])).resolves.toMatchObject({ text: WHICH_TASK });
  });

  it('reads "the second one" against the last list shown', async () => {
    const listed: AgentMessage[] = [
      user('show my tasks'),
      { role: 'assistant', content: null, toolCalls: [{ id: 'l', name: 'list_tasks', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'l',
        name: 'list_tasks',
        isError: false,
        content: JSON.stringify({
          status: 'all',
          count: 2,
          tasks: [
            { number: 4, title: 'A' },
            { number: 9, title: 'B' },
          ],
        }),
      },
      { role: 'assistant', content: 'Here they are.' },
    ];
    await expect(ask([...listed, user('snooze the second one')])).resolves.toMatchObject({
      toolCalls: [{ name: 'snooze_task', arguments: JSON.stringify({ number: 9 }) }],
    });
  });

  it('does not call a tool that is not offered', async () => {
    await expect(ask([user('snooze task 2')], TODO_TOOLS)).resolves.toMatchObject({ text: CLARIFY });
  });

  it('words its result by the tool’s title when it has no sentence of its own', async () => {
    const result = {
      task: { number: 2, title: 'Dentist', description: null, priority: 'low', completed: false },
      previousPriority: 'high',
    };
    const answered = await ask([
      user('snooze task 2'),
      { role: 'assistant', content: null, toolCalls: [{ id: 's', name: 'snooze_task', arguments: '{"number":2}' }] },
      { role: 'tool', toolCallId: 's', name: 'snooze_task', isError: false, content: JSON.stringify(result) },
    ]);
    expect(answered.text).toBe("Done! Snooze a task: 'Dentist'.");
  });
});
