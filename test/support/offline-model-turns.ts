import type { CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { TODO_TOOLS, type TaskView } from '../../src/application/todo/tools/todo-tool-definitions';
import type { AgentMessage } from '../../src/domain/agent/tools';
import { type OfflineLanguageModel } from '../../src/infrastructure/llm/offline/offline-language-model';

export function task(number: number, title: string, overrides: Partial<TaskView> = {}): TaskView {
  return { number, title, description: null, priority: 'medium', completed: false, ...overrides };
}

export function request(messages: readonly AgentMessage[], overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return { systemPrompt: 'You are Bridle.', messages, tools: TODO_TOOLS, signal: new AbortController().signal, ...overrides };
}

export const user = (content: string): AgentMessage => ({ role: 'user', content });

export interface Outcome {
  readonly name: string;
  readonly result?: unknown;
  readonly error?: { readonly code: string; readonly message: string; readonly details?: unknown };
}

/** A user turn, the assistant's tool calls, then one tool message per outcome. */
export function afterTools(...outcomes: readonly Outcome[]): AgentMessage[] {
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

export function shown(status: string, tasks: readonly TaskView[]): AgentMessage[] {
  return [...afterTools({ name: 'list_tasks', result: { status, count: tasks.length, tasks } }), { role: 'assistant', content: '…' }];
}

export const milk = task(1, 'Buy milk');

export async function answerOf(sut: OfflineLanguageModel, messages: readonly AgentMessage[], overrides: Partial<CompletionRequest> = {}) {
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
