import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** What the fake answers to one request. */
export type FakeAnswer =
  | { readonly status?: number; readonly headers?: Record<string, string>; readonly json: unknown; readonly delayMs?: number }
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
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
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
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.json));
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
