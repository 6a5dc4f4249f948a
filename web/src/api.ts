/** The documented HTTP API (README's API table, /docs-json), as the console uses it. */

export interface Session {
  readonly token: string;
  readonly userId: string;
  readonly email: string;
}

export interface Task {
  number: number;
  title: string;
  priority: 'low' | 'medium' | 'high';
  completed: boolean;
}

export interface ToolCall {
  tool: string;
  arguments: object | string;
  success: boolean;
  result?: unknown;
  error?: { code: string; message: string };
  durationMs: number;
}

export interface Conversation {
  id: string;
  title: string;
  updatedAt: string;
}

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  toolCalls: ToolCall[];
  decisionType: string | null;
  status: string | null;
}

export interface ChatReply {
  conversationId: string;
  response: string;
  toolCalls: ToolCall[];
  decision: { type: string; id: string };
  status: string;
}

export type ChatEvent =
  | { event: 'tool_call'; data: { tool: string; arguments: object | string } }
  | { event: 'tool_result'; data: ToolCall }
  | { event: 'delta'; data: { text: string } }
  | { event: 'confirmation_required'; data: { prompt: string } }
  | { event: 'error'; data: { message: string } }
  | { event: 'done'; data: ChatReply };

/** An error already phrased for a person: the console shows `message`, never a stack. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const SESSION_KEY = 'bridle.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION_KEY);
}

function friendly(status: number, body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  const text = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : '';
  if (status === 401) return text || 'Your session has ended. Please sign in again.';
  if (status === 429) return 'Too many requests. Please wait a moment and try again.';
  if (status >= 500 || !text) return 'Something went wrong on our side. Please try again.';
  return text;
}

async function send(method: string, path: string, session: Session | null, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (session) headers.authorization = `Bearer ${session.token}`;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'Cannot reach Bridle. Check your connection and try again.');
  }
  if (!res.ok) {
    const payload: unknown = await res.json().catch(() => null);
    throw new ApiError(res.status, friendly(res.status, payload));
  }
  return res;
}

async function json<T>(method: string, path: string, session: Session | null, body?: unknown): Promise<T> {
  return (await (await send(method, path, session, body)).json()) as T;
}

export async function register(email: string, password: string): Promise<void> {
  await send('POST', '/auth/register', null, { email, password });
}

export async function login(email: string, password: string): Promise<Session> {
  const reply = await json<{ accessToken: string; userId: string }>('POST', '/auth/login', null, { email, password });
  return { token: reply.accessToken, userId: reply.userId, email };
}

export async function listTasks(session: Session): Promise<Task[]> {
  return json<Task[]>('GET', `/api/${session.userId}/tasks?status=all`, session);
}

export async function listConversations(session: Session): Promise<Conversation[]> {
  return (await json<{ items: Conversation[] }>('GET', `/api/${session.userId}/conversations?limit=20`, session)).items;
}

export async function listMessages(session: Session, conversationId: string): Promise<Message[]> {
  const path = `/api/${session.userId}/conversations/${conversationId}/messages?limit=50`;
  return (await json<{ items: Message[] }>('GET', path, session)).items;
}

/** Runs one chat turn over Server-Sent Events, calling `onEvent` as each event arrives. */
export async function streamChat(
  session: Session,
  message: string,
  conversationId: string | undefined,
  onEvent: (event: ChatEvent) => void,
): Promise<void> {
  const res = await send('POST', `/api/${session.userId}/chat/stream`, session, { message, conversationId });
  if (!res.body) throw new ApiError(0, 'Your browser cannot read the reply stream.');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseEvent(block);
      if (event) onEvent(event);
    }
  }
}

function parseEvent(block: string): ChatEvent | null {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  return { event: name, data: JSON.parse(data.join('\n')) as unknown } as ChatEvent;
}
