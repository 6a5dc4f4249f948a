import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { TODO_TOOLS } from '../../src/application/todo/tools/todo-tool-definitions';
import { GeminiLanguageModel } from '../../src/infrastructure/llm/gemini/gemini-language-model';
import { OpenAiLanguageModel } from '../../src/infrastructure/llm/openai/openai-language-model';
import {
  chatChunk,
  chatCompletion,
  FakeProviderServer,
  finishChunk,
  geminiResponse,
  geminiStream,
  openAiStream,
  usageChunk,
} from '../support/fake-provider-server';

/**
 * Tool-call arguments as the providers' real SDKs hand them over, whatever JSON value the
 * server put there: every adapter makes them the text the agent parses (toolArgumentsText),
 * an object as its JSON and null as null, for parseToolCall to take or refuse. Never a throw.
 */

const retry = { timeoutMs: 1_000, maxRetries: 0, retryMaxWaitMs: 1_000 };

function request(): CompletionRequest {
  return {
    systemPrompt: 'You manage tasks.',
    messages: [{ role: 'user', content: 'add milk' }],
    tools: TODO_TOOLS,
    signal: new AbortController().signal,
  };
}

const ARGUMENTS: readonly [string, unknown, string][] = [
  ['a JSON string', '{"title":"Milk"}', '{"title":"Milk"}'],
  ['an object', { title: 'Milk' }, '{"title":"Milk"}'],
  ['null', null, 'null'],
  ['an array', [1], '[1]'],
  ['a number', 7, '7'],
];

describe('tool-call arguments from the wire', () => {
  let fake: FakeProviderServer;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });

  afterAll(async () => {
    await fake?.stop();
  });

  describe(OpenAiLanguageModel.name, () => {
    let sut: OpenAiLanguageModel;

    beforeAll(() => {
      const client = new OpenAI({ apiKey: 'sk-test-not-a-real-key', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      sut = new OpenAiLanguageModel(client, { provider: 'openai', model: 'gpt-test', retry });
    });

    it.each(ARGUMENTS)('answers with %s as text', async (_, args, text) => {
      fake.respond(() => ({
        json: chatCompletion(
          { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add_task', arguments: args } }] },
          'tool_calls',
        ),
      }));
      const completion = await sut.complete(request());
      expect(completion.toolCalls).toEqual([{ id: 'call_1', name: 'add_task', arguments: text }]);
    });

    it.each(ARGUMENTS)('streams %s, in one delta, as text', async (_, args, text) => {
      fake.respond(() =>
        openAiStream([
          chatChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'add_task', arguments: args } }] }),
          finishChunk('tool_calls'),
          usageChunk(),
        ]),
      );
      const completion = await sut.stream(request(), () => undefined);
      expect(completion.toolCalls).toEqual([{ id: 'call_1', name: 'add_task', arguments: text }]);
    });
  });

  describe(GeminiLanguageModel.name, () => {
    let sut: GeminiLanguageModel;

    beforeAll(() => {
      const client = new GoogleGenAI({
        apiKey: 'AIza-test-not-a-real-key',
        httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } },
      });
      sut = new GeminiLanguageModel(client, 'gemini-test', retry);
    });

    it.each([...ARGUMENTS.filter(([, args]) => typeof args !== 'string'), ['no args at all', undefined, ''] as const])(
      'answers with %s as text',
      async (_, args, text) => {
        const call = { id: 'g1', name: 'add_task', ...(args === undefined ? {} : { args }) };
        fake.respond(() => ({ json: geminiResponse([{ functionCall: call }]) }));
        expect((await sut.complete(request())).toolCalls).toEqual([{ id: 'g1', name: 'add_task', arguments: text }]);
        fake.respond(() => geminiStream([geminiResponse([{ functionCall: call }])]));
        expect((await sut.stream(request(), () => undefined)).toolCalls).toEqual([{ id: 'g1', name: 'add_task', arguments: text }]);
      },
    );
  });
});
