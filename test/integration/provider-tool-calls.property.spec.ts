import { randomUUID } from 'node:crypto';
import { GoogleGenAI } from '@google/genai';
import fc from 'fast-check';
import OpenAI from 'openai';
import type { LanguageModel } from '../../src/application/agent/ports/language-model.port';
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
  type RecordedRequest,
  textChunk,
  usageChunk,
} from '../support/fake-provider-server';
import { type OfflineChat, startOfflineChat } from '../support/offline-chat';

/**
 * Whatever JSON a provider puts in any field of a tool call (its id, type, name, arguments,
 * a streamed delta's index, the call or the list itself), the real SDK hands it to Bridle's
 * adapter and a whole chat turn runs on it: the turn never fails unexpectedly (the 500 and
 * the stream's "unexpected error" of an unchecked field), and every tool result goes back
 * to the provider under an id of the call it answers, ids unique in the answer.
 */

const retry = { timeoutMs: 5_000, maxRetries: 0, retryMaxWaitMs: 1_000 };
const account = { kind: 'checked-by-guard' } as const;
const RUNS = 30;

/** A field as a provider may send it: the right value, missing, or any JSON value at all. */
const field = <T>(good: T) => fc.oneof(fc.constant(good), fc.constant(undefined), fc.jsonValue());

/** An object without the fields generated as missing. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

const openAiFunction = fc.oneof(fc.record({ name: field('add_task'), arguments: field('{"title":"Milk"}') }).map(present), fc.jsonValue());
const openAiCall = fc.oneof(
  { weight: 4, arbitrary: fc.record({ id: field('call_1'), type: field('function'), function: openAiFunction }).map(present) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
/** `tool_calls` of a message: a list of calls, or (a server that bends the format) any JSON value. */
const openAiCalls = fc.oneof(
  { weight: 4, arbitrary: fc.array(openAiCall, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
const openAiDelta = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ index: field(0), id: field('call_1'), type: field('function'), function: openAiFunction }).map(present),
  },
  { weight: 1, arbitrary: fc.jsonValue() },
);
/** Each chunk's `delta.tool_calls`. */
const openAiDeltas = fc.array(
  fc.oneof({ weight: 4, arbitrary: fc.array(openAiDelta, { minLength: 1, maxLength: 2 }) }, { weight: 1, arbitrary: fc.jsonValue() }),
  { minLength: 1, maxLength: 4 },
);
const geminiCall = fc.oneof(
  { weight: 4, arbitrary: fc.record({ id: field('g1'), name: field('add_task'), args: field({ title: 'Milk' }) }).map(present) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
const geminiParts = fc.array(
  fc.oneof({ weight: 4, arbitrary: geminiCall.map((functionCall) => ({ functionCall })) }, { weight: 1, arbitrary: fc.jsonValue() }),
  { minLength: 1, maxLength: 3 },
);

const lastOpenAiRole = (req: RecordedRequest) => (req.body.messages as { role: string }[]).at(-1)?.role;
const answeringGemini = (req: RecordedRequest) =>
  (req.body.contents as { parts?: { functionResponse?: unknown }[] }[]).at(-1)?.parts?.some((part) => part.functionResponse) ?? false;

/** The tool results sent back to an OpenAI-format server each answer a call of the message before them, by a unique id. */
function expectPairedOpenAi(requests: readonly RecordedRequest[]): void {
  for (const req of requests) {
    const messages = req.body.messages as { role: string; tool_calls?: { id: unknown }[]; tool_call_id?: unknown }[];
    let ids: unknown[] = [];
    for (const message of messages) {
      if (message.role === 'assistant') {
        ids = (message.tool_calls ?? []).map((call) => call.id);
        expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
      }
      if (message.role === 'tool') expect(ids).toContain(message.tool_call_id);
    }
  }
}

describe('any JSON in any field of a provider tool call, through the real SDKs and a whole chat turn', () => {
  let fake: FakeProviderServer;

  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  afterAll(() => fake?.stop());

  async function withChat(model: LanguageModel, run: (chat: OfflineChat) => Promise<void>): Promise<void> {
    const chat = await startOfflineChat({}, { languageModel: model });
    try {
      await run(chat);
    } finally {
      await chat.close();
    }
  }

  /** One turn, plain or streamed; it must end as a turn (never throw), and never as an unexpected failure. */
  async function turn(chat: OfflineChat, streamed: boolean): Promise<void> {
    const pieces: string[] = [];
    const input = { userId: randomUUID(), account, message: 'add milk' };
    const reply = streamed ? await chat.chat.execute(input, { text: (piece) => pieces.push(piece) }) : await chat.chat.execute(input);
    expect(reply.error?.category).not.toBe('UNKNOWN');
    expect(typeof reply.response).toBe('string');
    for (const call of reply.toolCalls) expect(typeof call.tool).toBe('string');
  }

  describe('OpenAI chat completions', () => {
    const model = () =>
      new OpenAiLanguageModel(new OpenAI({ apiKey: 'sk-test-not-a-real-key', baseURL: `${fake.url}/v1`, maxRetries: 0 }), {
        provider: 'openai',
        model: 'gpt-test',
        retry,
      });

    it('a plain answer', () =>
      withChat(model(), (chat) =>
        fc.assert(
          fc.asyncProperty(openAiCalls, async (toolCalls) => {
            fake.respond((req) =>
              lastOpenAiRole(req) === 'tool'
                ? { json: chatCompletion({ content: 'Done.' }) }
                : { json: chatCompletion({ tool_calls: toolCalls as unknown[] }, 'tool_calls') },
            );
            await turn(chat, false);
            expectPairedOpenAi(fake.requests);
          }),
          { numRuns: RUNS },
        ),
      ));

    it('a streamed answer', () =>
      withChat(model(), (chat) =>
        fc.assert(
          fc.asyncProperty(openAiDeltas, async (deltas) => {
            fake.respond((req) =>
              lastOpenAiRole(req) === 'tool'
                ? openAiStream([textChunk('Done.'), finishChunk('stop'), usageChunk()])
                : openAiStream([...deltas.map((tool_calls) => chatChunk({ tool_calls })), finishChunk('tool_calls'), usageChunk()]),
            );
            await turn(chat, true);
            expectPairedOpenAi(fake.requests);
          }),
          { numRuns: RUNS },
        ),
      ));
  });

  describe('Gemini functionCall', () => {
    const model = () =>
      new GeminiLanguageModel(
        new GoogleGenAI({ apiKey: 'AIza-test-not-a-real-key', httpOptions: { baseUrl: fake.url, retryOptions: { attempts: 1 } } }),
        'gemini-test',
        retry,
      );

    it.each([
      ['a plain answer', false],
      ['a streamed answer', true],
    ])('%s', (_, streamed) =>
      withChat(model(), (chat) =>
        fc.assert(
          fc.asyncProperty(geminiParts, async (parts) => {
            fake.respond((req) => {
              const body = answeringGemini(req) ? geminiResponse([{ text: 'Done.' }]) : geminiResponse(parts);
              return streamed ? geminiStream([body]) : { json: body };
            });
            await turn(chat, streamed);
          }),
          { numRuns: RUNS },
        ),
      ),
    );
  });
});
