import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * An instant OpenAI-compatible chat-completions server for the benchmark: the model costs
 * nothing and the same for Bridle (`LLM_PROVIDER=openai`, `OPENAI_BASE_URL`) and the
 * reference. It answers what the offline model would for the benchmark's messages, with the
 * same tool calls:
 *   "add <title>"          → add_task {title}
 *   "list my pending tasks" → list_tasks {status: "pending"}
 *   "mark task <n> done"   → complete_task {number: n}
 *   "delete task <n>"      → delete_task {number: n}  (Bridle asks for confirmation itself;
 *                             "yes delete" never reaches the model)
 * A request whose last message is a tool result gets a short answer in words, as does a
 * request without tools (a conversation summary) or any other message. A tool is called only
 * if the request offers it. One tool call per answer, like the offline model for these
 * messages.
 *
 * Run: `node fake-openai.js` (PORT, default 0: any free port); prints its base URL.
 * `GET /stats` → {requests, toolCalls: {<name>: count}}.
 */

interface ChatRequest {
  readonly model?: string;
  readonly messages?: readonly { readonly role?: string; readonly content?: unknown }[];
  readonly tools?: readonly { readonly function?: { readonly name?: string } }[];
  readonly tool_choice?: unknown;
}

type Decision = { readonly text: string } | { readonly tool: string; readonly arguments: Record<string, unknown> };

const ANSWER_AFTER_TOOL = 'Done. Your list is up to date.';
const SUMMARY = 'The person added, listed, completed and deleted tasks.';
const OTHERWISE = 'I can add, list, complete and delete your tasks.';

/** A message's words: its content is a string, or (as @openai/agents sends it) a list of parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: unknown; text?: unknown }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

export function decide(request: ChatRequest): Decision {
  const messages = request.messages ?? [];
  const last = messages.at(-1);
  const offered = new Set((request.tools ?? []).map((tool) => tool.function?.name));
  if (last?.role === 'tool') return { text: ANSWER_AFTER_TOOL };
  if (offered.size === 0 || request.tool_choice === 'none') return { text: SUMMARY };
  const said = textOf(last?.content).trim();
  const call = (tool: string, args: Record<string, unknown>): Decision =>
    offered.has(tool) ? { tool, arguments: args } : { text: OTHERWISE };
  let match: RegExpExecArray | null;
  if ((match = /^add (.+)$/i.exec(said))) return call('add_task', { title: match[1] });
  if (/^list my pending tasks$/i.test(said)) return call('list_tasks', { status: 'pending' });
  if ((match = /^mark task (\d+) done$/i.exec(said))) return call('complete_task', { number: Number(match[1]) });
  if ((match = /^delete task (\d+)$/i.exec(said))) return call('delete_task', { number: Number(match[1]) });
  return { text: OTHERWISE };
}

export function startFakeOpenAI(port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  let requests = 0;
  const toolCalls: Record<string, number> = {};
  const reply = (response: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === '/stats') return reply(response, 200, { requests, toolCalls });
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions'))
      return reply(response, 404, { error: { message: 'not found' } });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: ChatRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    } catch {
      return reply(response, 400, { error: { message: 'the body is not JSON' } });
    }
    requests++;
    const decision = decide(body);
    const message =
      'text' in decision
        ? { role: 'assistant', content: decision.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${requests}`,
                type: 'function',
                function: { name: decision.tool, arguments: JSON.stringify(decision.arguments) },
              },
            ],
          };
    if ('tool' in decision) toolCalls[decision.tool] = (toolCalls[decision.tool] ?? 0) + 1;
    reply(response, 200, {
      id: `chatcmpl_${requests}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'fake',
      choices: [{ index: 0, message, finish_reason: 'text' in decision ? 'stop' : 'tool_calls', logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  };
  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) reply(response, 500, { error: { message: 'the fake failed' } });
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      resolve({ url: `http://127.0.0.1:${bound}/v1`, close: () => new Promise((done) => server.close(() => done())) });
    }),
  );
}

if (require.main === module) {
  void startFakeOpenAI(Number(process.env.PORT ?? 0)).then(({ url, close }) => {
    process.stdout.write(`fake OpenAI on ${url}\n`);
    process.once('SIGTERM', () => void close().finally(() => process.exit(0)));
  });
}
