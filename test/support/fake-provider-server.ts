import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  /** The data payloads of a stream answer written so far, in order: what the client may have read. */
  readonly written: readonly string[];
}

/**
 * A server-sent-event stream: `data: <payload>` per payload of `stream`, `gapMs` apart, then
 * `done` if set (OpenAI's `[DONE]`). `until` holds the last payload back until it settles;
 * `failAfter` breaks the connection once that many payloads went out.
 */
export interface FakeStream {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly stream: readonly string[];
  readonly done?: string;
  readonly gapMs?: number;
  readonly until?: Promise<void>;
  readonly failAfter?: number;
}

/** What the fake answers to one request. */
export type FakeAnswer =
  | { readonly status?: number; readonly headers?: Record<string, string>; readonly json: unknown; readonly delayMs?: number }
  | FakeStream
  | { readonly hang: true }
  | { readonly destroy: true };

export type Responder = (request: RecordedRequest, index: number) => FakeAnswer;

/**
 * An HTTP server on 127.0.0.1 that speaks whatever wire format its responder writes, and
 * records every request, so that tests drive the real SDKs against it.
 */
export class FakeProviderServer {
  readonly requests: RecordedRequest[] = [];
  private responder: Responder = () => ({ status: 500, json: { error: { message: 'no responder set' } } });
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeProviderServer> {
    const server = createServer();
    const fake = new FakeProviderServer(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The configuration that points Bridle's OpenAI adapter (the real SDK) at this server, without retries. */
  get openAiEnv(): Record<string, string> {
    return {
      LLM_PROVIDER: 'openai',
      OPENAI_API_KEY: 'sk-e2e-not-a-real-key',
      OPENAI_MODEL: 'gpt-test',
      OPENAI_BASE_URL: `${this.url}/v1`,
      LLM_MAX_RETRIES: '0',
    };
  }

  respond(responder: Responder): void {
    this.responder = responder;
    this.requests.length = 0;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const written: string[] = [];
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      written,
    };
    this.requests.push(recorded);
    const answer = this.responder(recorded, this.requests.length - 1);
    if ('hang' in answer) {
      this.hanging.add(res);
      return;
    }
    if ('destroy' in answer) {
      req.socket.destroy();
      return;
    }
    if ('stream' in answer) {
      this.hanging.add(res);
      await this.writeStream(res, answer, written);
      this.hanging.delete(res);
      return;
    }
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.json));
  }

  /** Writes each payload once the previous one was flushed, stopping if the client went away. */
  private async writeStream(res: ServerResponse, answer: FakeStream, written: string[]): Promise<void> {
    res.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...answer.headers });
    res.flushHeaders();
    const payloads = answer.done === undefined ? answer.stream : [...answer.stream, answer.done];
    for (const [i, payload] of payloads.entries()) {
      if (i === answer.failAfter) {
        res.socket?.destroy();
        return;
      }
      if (i > 0 && answer.gapMs) await new Promise((resolve) => setTimeout(resolve, answer.gapMs));
      if (i === answer.stream.length - 1 && answer.until) await answer.until;
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(`data: ${payload}\n\n`, () => resolve()));
      written.push(payload);
    }
    res.end();
  }
}

/** A Chat Completions response body. */
export function chatCompletion(message: { content?: string | null; tool_calls?: unknown[] }, finish = 'stop'): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
  };
}

export function toolCall(id: string, name: string, args: string): unknown {
  return { id, type: 'function', function: { name, arguments: args } };
}

/** A Gemini generateContent response body. */
export function geminiResponse(parts: unknown[], finishReason = 'STOP'): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
    usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 5, totalTokenCount: 35 },
    modelVersion: 'gemini-test',
  };
}

/** The answer that streams these Chat Completions chunks, ended by `[DONE]`. */
export function openAiStream(chunks: readonly unknown[], options: Omit<FakeStream, 'stream' | 'done'> = {}): FakeStream {
  return { ...options, stream: chunks.map((chunk) => JSON.stringify(chunk)), done: '[DONE]' };
}

/** A Chat Completions stream chunk (`chat.completion.chunk`) carrying this delta. */
export function chatChunk(delta: Record<string, unknown>, finish: string | null = null): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

export function textChunk(content: string): unknown {
  return chatChunk({ content });
}

/** One delta of the tool call at `index`: the first carries id and name, the next ones pieces of the arguments. */
export function toolCallChunk(index: number, delta: { id?: string; name?: string; arguments?: string }): unknown {
  return chatChunk({
    tool_calls: [
      {
        index,
        ...(delta.id === undefined ? {} : { id: delta.id, type: 'function' }),
        function: { ...(delta.name === undefined ? {} : { name: delta.name }), arguments: delta.arguments ?? '' },
      },
    ],
  });
}

export function finishChunk(finish: string): unknown {
  return chatChunk({}, finish);
}

/** The last chunk when `stream_options.include_usage` is set: no choices, the usage of the whole answer. */
export function usageChunk(prompt = 42, completion = 7): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/** The answer that streams these Gemini chunks (GenerateContentResponse objects); Gemini sends no terminator. */
export function geminiStream(chunks: readonly unknown[], options: Omit<FakeStream, 'stream' | 'done'> = {}): FakeStream {
  return { ...options, stream: chunks.map((chunk) => JSON.stringify(chunk)) };
}

/** A Gemini stream chunk before the last: some parts, no finish reason, the usage so far. End with geminiResponse(). */
export function geminiChunk(parts: unknown[]): unknown {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0 }],
    usageMetadata: { promptTokenCount: 30, totalTokenCount: 30 },
    modelVersion: 'gemini-test',
  };
}

/** A promise a test settles by hand, e.g. the `until` of a stream. */
export function gate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** `promise`, or a failure saying `what` when it has not settled after `ms`: a test that would hang fails instead. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
