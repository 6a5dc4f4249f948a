import { Injectable } from '@nestjs/common';
import {
  type Completion,
  type CompletionRequest,
  LanguageModel,
  type TokenUsage,
} from '../../../application/agent/ports/language-model.port';
import { LanguageModelBadRequestError, LanguageModelTimeoutError } from '../../../domain/agent/language-model-errors';
import type { AgentMessage } from '../../../domain/agent/tools';
import type { TaskView } from '../../../application/todo/tools/todo-tool-definitions';
import { OUTREACH_SYSTEM_PROMPT_HEAD } from '../../../application/outreach/outreach-planner.prompt';
import { CONVERSATION_SUMMARY_PROMPT, SUMMARY_MAX_CHARS } from '../../../application/chat/conversation-summary.prompt';
import { readTranscript } from '../../../application/chat/history';
import { foldedSummary } from '../../../domain/chat/summary-facts';
import { type Intent, understand } from './intent';
import { namedToolCall } from './named-tool';
import { planOutreachAction } from './outreach-planner';
import type { TaskTarget } from './phrases';
import {
  CLARIFY,
  composeReply,
  GREETING,
  HELP,
  MORE_DETAILS,
  NOTHING_TO_CONFIRM,
  OFF_TOPIC,
  outOfRange,
  parsed,
  taskViews,
  type ToolOutcome,
  UNAVAILABLE,
} from './replies';
import { WHICH_TASK } from '../../../domain/todo/tool-errors';
import { OFFLINE_MODEL } from './offline-model-name';

type Arguments = Readonly<Record<string, unknown>>;
type Answer = { readonly text: string } | { readonly calls: readonly { readonly tool: string; readonly arguments: Arguments }[] };
/** A tool's arguments, or the question to ask instead when the sentence did not say enough. */
type Plan = { readonly arguments: Arguments } | { readonly question: string };

/**
 * Bridle's default model: no key, no network. Rules instead of weights, so it is a pure
 * function of the request: the same conversation always gets the same answer.
 */
@Injectable()
export class OfflineLanguageModel extends LanguageModel {
  readonly provider = 'offline';
  readonly model = OFFLINE_MODEL;

  /** @param streamWordDelayMs the pause between streamed words (OFFLINE_STREAM_WORD_DELAY_MS); 0 streams them at once. */
  constructor(private readonly streamWordDelayMs = 0) {
    super();
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    // Nothing here waits; being async turns the throws below into rejections, as callers expect.
    return Promise.resolve(answer(request));
  }

  /**
   * Word by word, paced as a provider's tokens arrive, so the console streams with no key
   * too. A turn that ends (deadline, abort) stops the pacing but not the answer: what was
   * decided is sent whole.
   */
  override async stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    const completion = await this.complete(request);
    // Each word with the spaces after it, the first with those before it too.
    const words = completion.text?.match(/^\s*\S+\s*|\S+\s*/g) ?? [];
    for (const [index, word] of words.entries()) {
      if (index > 0 && this.streamWordDelayMs > 0 && !request.signal.aborted) await pause(this.streamWordDelayMs);
      onText(word);
    }
    return completion;
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function answer(request: CompletionRequest): Completion {
  if (request.signal.aborted) {
    throw new LanguageModelTimeoutError('The turn ended before the offline model could answer');
  }
  if (request.options?.jsonMode) return completion({ text: outreachPlan(request) }, request);
  if (request.systemPrompt === CONVERSATION_SUMMARY_PROMPT) return completion({ text: summaryOf(request) }, request);
  const results = trailingToolResults(request.messages);
  if (results.length > 0) return completion({ text: composeReply(results, request.tools) }, request);
  const last = request.messages.at(-1);
  if (last?.role !== 'user') {
    throw new LanguageModelBadRequestError('The offline model answers a user message or tool results; the last message is neither');
  }
  return completion(respond(understand(last.content), request, last.content), request);
}

/** A deterministic summary of the transcript: the summary so far folded in, what the person asked and what was done. */
function summaryOf(request: CompletionRequest): string {
  const { previous, folded } = readTranscript(request.messages.find((message) => message.role === 'user')?.content ?? '');
  return foldedSummary(previous, folded, SUMMARY_MAX_CHARS);
}

/** Plans from the first user message: the prompt itself, before any re-ask was appended. */
function outreachPlan(request: CompletionRequest): string {
  if (!request.systemPrompt.startsWith(`${OUTREACH_SYSTEM_PROMPT_HEAD}\n`)) {
    throw new LanguageModelBadRequestError('The offline model answers in JSON mode only for outreach planning');
  }
  const prompt = request.messages.find((message) => message.role === 'user');
  const plan = prompt && planOutreachAction(prompt.content);
  if (!plan) throw new LanguageModelBadRequestError('The offline model could not read this outreach prompt');
  return plan;
}

/** The results of the last assistant message's tool calls, in call order. */
function trailingToolResults(messages: readonly AgentMessage[]): ToolOutcome[] {
  const results: ToolOutcome[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== 'tool') break;
    results.unshift(message);
  }
  return results;
}

function respond(intent: Intent, request: CompletionRequest, said: string): Answer {
  switch (intent.kind) {
    case 'greeting':
      return { text: GREETING };
    case 'help':
      return { text: HELP };
    case 'confirmation':
      return { text: NOTHING_TO_CONFIRM };
    case 'off_topic':
      return byToolWords(said, request) ?? { text: OFF_TOPIC };
    case 'unclear':
      return byToolWords(said, request) ?? { text: CLARIFY };
    case 'needs_detail':
      return { text: MORE_DETAILS[intent.detail] };
    case 'add':
      return call(request, 'add_task', () => ({
        arguments: { title: intent.title, ...(intent.priority && { priority: intent.priority }) },
      }));
    case 'list':
      return call(request, 'list_tasks', () => ({ arguments: { status: intent.status } }));
    case 'complete':
      return call(request, 'complete_task', () => resolve(intent.target, request.messages));
    case 'complete_several': {
      // One call a task, in one batch, as a model with parallel tool calls does.
      if (!offers(request, 'complete_task')) return { text: UNAVAILABLE };
      return { calls: intent.numbers.map((number) => ({ tool: 'complete_task', arguments: { number } })) };
    }
    case 'update':
      return call(request, 'update_task', () => {
        const target = resolve(intent.target, request.messages);
        return 'question' in target ? target : { arguments: { ...target.arguments, ...intent.edits } };
      });
    case 'delete':
      return call(request, 'delete_task', () => {
        const { target } = intent;
        if (target.kind === 'numbers') return { arguments: { numbers: target.numbers } };
        if (target.kind === 'scope') return { arguments: { scope: target.scope } };
        return resolve(target, request.messages);
      });
  }
}

/** The tools this model has intents of its own for (respond): only the others are called by their words. */
const OWN_TOOLS: ReadonlySet<string> = new Set(['add_task', 'list_tasks', 'complete_task', 'update_task', 'delete_task']);

/** A call to an offered tool it has no intent for, which the sentence names in the tool's own words (namedToolCall). */
function byToolWords(said: string, request: CompletionRequest): Answer | null {
  if (request.options?.toolChoice === 'none') return null;
  const named = namedToolCall(
    said,
    request.tools.filter((tool) => !OWN_TOOLS.has(tool.name)),
  );
  if (!named) return null;
  const { tool, target, missing } = named;
  if (missing !== null && missing !== 'number' && missing !== 'query') {
    return { text: `Could you provide more details about the ${missing.replace(/_/g, ' ')}?` };
  }
  const task = target === null ? { arguments: {} } : resolve(target, request.messages);
  if ('question' in task) return { text: task.question };
  return { calls: [{ tool: tool.name, arguments: { ...named.arguments, ...task.arguments } }] };
}

/** Checks the tool is on offer before working out its arguments, which may still end in a question. */
function call(request: CompletionRequest, tool: string, plan: () => Plan): Answer {
  if (!offers(request, tool)) return { text: UNAVAILABLE };
  const planned = plan();
  return 'question' in planned ? { text: planned.question } : { calls: [{ tool, arguments: planned.arguments }] };
}

function offers(request: CompletionRequest, tool: string): boolean {
  return request.options?.toolChoice !== 'none' && request.tools.some((definition) => definition.name === tool);
}

function resolve(target: TaskTarget, messages: readonly AgentMessage[]): Plan {
  switch (target.kind) {
    case 'number':
      return { arguments: { number: target.number } };
    case 'query':
      return { arguments: { query: target.query } };
    case 'missing':
      return { question: WHICH_TASK };
    case 'position': {
      const shown = lastListShown(messages);
      if (shown === undefined || shown.length === 0) return { question: WHICH_TASK };
      const index = target.position === 'last' ? shown.length - 1 : target.position - 1;
      const task = shown.at(index);
      return task && index >= 0 ? { arguments: { number: task.number } } : { question: outOfRange(shown.length) };
    }
  }
}

/** "The second one" means the second line of the most recent list the person was shown. */
function lastListShown(messages: readonly AgentMessage[]): TaskView[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === 'tool' && message.name === 'list_tasks' && !message.isError) {
      return taskViews(parsed(message.content).tasks);
    }
  }
  return undefined;
}

function completion(answer: Answer, request: CompletionRequest): Completion {
  if ('text' in answer) {
    return { text: answer.text, toolCalls: [], usage: usage(request, answer.text.length), finishReason: 'stop' };
  }
  // Ids only need to be unique within one assistant message and stable across runs.
  const toolCalls = answer.calls.map((call, i) => ({
    id: `offline-${request.messages.length}-${i}`,
    name: call.tool,
    arguments: JSON.stringify(call.arguments),
  }));
  return {
    text: null,
    toolCalls,
    usage: usage(
      request,
      toolCalls.reduce((length, call) => length + call.name.length + call.arguments.length, 0),
    ),
    finishReason: 'tool_calls',
  };
}

/** A rough 4-characters-per-token estimate, so budgets and logs have numbers to work with. */
function usage(request: CompletionRequest, answerChars: number): TokenUsage {
  const promptChars = request.messages.reduce((sum, message) => sum + (message.content?.length ?? 0), request.systemPrompt.length);
  return { promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.ceil(answerChars / 4) };
}
