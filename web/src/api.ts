/** The documented HTTP API (README's API table, /docs-json), as the console uses it. */

export type Role = 'user' | 'admin';

export interface Session {
  readonly token: string;
  readonly userId: string;
  readonly email: string;
  /** From /auth/me at sign-in; the console shows the audit page to admins only (the API enforces it). */
  readonly role: Role;
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
  finishReason: string;
  /** Set when the answer may be incomplete. */
  warning: string | null;
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

async function send(
  method: string,
  path: string,
  session: Session | null,
  body?: unknown,
  contentType = 'application/json',
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = contentType;
  if (session) headers.authorization = `Bearer ${session.token}`;
  const requestBody = body === undefined ? undefined : contentType === 'application/json' ? JSON.stringify(body) : (body as string);
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: requestBody });
  } catch {
    throw new ApiError(0, 'Cannot reach Bridle. Check your connection and try again.');
  }
  if (!res.ok) {
    const payload: unknown = await res.json().catch(() => null);
    throw new ApiError(res.status, friendly(res.status, payload));
  }
  return res;
}

async function json<T>(
  method: string,
  path: string,
  session: Session | null,
  body?: unknown,
  contentType?: string,
): Promise<T> {
  return (await (await send(method, path, session, body, contentType)).json()) as T;
}

export async function register(email: string, password: string): Promise<void> {
  await send('POST', '/auth/register', null, { email, password });
}

export async function login(email: string, password: string): Promise<Session> {
  const reply = await json<{ accessToken: string; userId: string }>('POST', '/auth/login', null, { email, password });
  const pending = { token: reply.accessToken, userId: reply.userId, email, role: 'user' as Role };
  const account = await json<{ email: string; role: Role }>('GET', '/auth/me', pending);
  return { ...pending, email: account.email, role: account.role };
}

export async function listTasks(session: Session): Promise<Task[]> {
  return json<Task[]>('GET', `/api/${session.userId}/tasks?status=all`, session);
}

/** The most recently active conversations first; pass `nextCursor` back for older ones. */
export async function listConversations(
  session: Session,
  cursor: string | null,
): Promise<{ items: Conversation[]; nextCursor: string | null }> {
  const query = `limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  return json('GET', `/api/${session.userId}/conversations?${query}`, session);
}

export async function listMessages(session: Session, conversationId: string): Promise<Message[]> {
  const path = `/api/${session.userId}/conversations/${conversationId}/messages?limit=50`;
  return (await json<{ items: Message[] }>('GET', path, session)).items;
}

export type CampaignStatus = 'draft' | 'active' | 'paused' | 'completed';
export type QuotaKind = 'profile_lookup' | 'linkedin_message' | 'email';
export const QUOTA_KINDS: readonly QuotaKind[] = ['profile_lookup', 'linkedin_message', 'email'];

export interface Campaign {
  id: string;
  name: string;
  status: CampaignStatus;
  dailyLimits: Record<QuotaKind, number>;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface QuotaUse {
  used: number;
  limit: number;
}

export interface CampaignDetails extends Campaign {
  leads: number;
  tasks: Record<'Pending' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled', number>;
  usage: {
    day: string;
    resetsAt: string;
    kinds: Record<QuotaKind, { campaign: QuotaUse; owner: QuotaUse; remaining: number }>;
  };
}

export interface LeadImportReport {
  imported: number;
  duplicates: { line: number | null; linkedinUrl: string }[];
  errors: { line: number; field: string | null; message: string }[];
}

export interface CampaignTask {
  id: string;
  leadId: string;
  leadName: string;
  leadLinkedinUrl: string;
  type: 'ScrapeProfile' | 'SendLinkedInMessage' | 'SendEmail';
  step: number;
  status: 'Pending' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled';
  attempts: number;
  nextRunAt: string;
  lastError: string | null;
  completedAt: string | null;
}

export interface CycleOutcome {
  status: string;
  code: string | null;
  message: string;
  task: { type: string; leadName: string; status: string; attempts: number } | null;
  proposal: { action: string; args: Record<string, unknown>; reason: string; by: string } | null;
  validation: { accepted: boolean; attempts: number; problems: string[] } | null;
  execution: { status: string; durationMs: number; errorCode: string | null } | null;
  verification: { verified: boolean; detail: string } | null;
}

const campaignsPath = (session: Session, id?: string): string =>
  `/api/${session.userId}/campaigns${id ? `/${encodeURIComponent(id)}` : ''}`;

export async function listCampaigns(session: Session): Promise<Campaign[]> {
  return (await json<{ items: Campaign[] }>('GET', `${campaignsPath(session)}?limit=100`, session)).items;
}

export async function createCampaign(session: Session, name: string): Promise<Campaign> {
  return json<Campaign>('POST', campaignsPath(session), session, { name });
}

export async function getCampaign(session: Session, id: string): Promise<CampaignDetails> {
  return json<CampaignDetails>('GET', campaignsPath(session, id), session);
}

export async function importLeadsCsv(session: Session, id: string, csv: string): Promise<LeadImportReport> {
  return json<LeadImportReport>('POST', `${campaignsPath(session, id)}/leads`, session, csv, 'text/csv');
}

export async function setCampaignRunning(session: Session, id: string, running: boolean): Promise<Campaign> {
  return json<Campaign>('POST', `${campaignsPath(session, id)}/${running ? 'start' : 'pause'}`, session);
}

export async function runCycle(session: Session, id: string): Promise<CycleOutcome> {
  return json<CycleOutcome>('POST', `${campaignsPath(session, id)}/cycles`, session);
}

/** Every task of the campaign, following the cursor. */
export async function listCampaignTasks(session: Session, id: string): Promise<CampaignTask[]> {
  const tasks: CampaignTask[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page: { items: CampaignTask[]; nextCursor: string | null } = await json(
      'GET',
      `${campaignsPath(session, id)}/tasks?limit=100${query}`,
      session,
    );
    tasks.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && tasks.length < 5000);
  return tasks;
}

export const AUDIT_SOURCES = ['chat', 'mcp', 'outreach', 'admin'] as const;
export const AUDIT_STATUSES = ['pending', 'succeeded', 'failed', 'rejected', 'unknown', 'confirmation_requested'] as const;

export interface AuditFilter {
  source?: (typeof AUDIT_SOURCES)[number];
  tool?: string;
  status?: (typeof AUDIT_STATUSES)[number];
  actorId?: string;
  decisionId?: string;
  /** ISO 8601; inclusive. */
  from?: string;
  /** ISO 8601; exclusive. */
  to?: string;
}

export interface AuditRow {
  seq: number;
  createdAt: string;
  source: (typeof AUDIT_SOURCES)[number];
  actorId: string;
  conversationId: string | null;
  campaignId: string | null;
  decisionId: string | null;
  tool: string;
  arguments: unknown;
  status: (typeof AUDIT_STATUSES)[number];
  result: unknown;
  errorCode: string | null;
  durationMs: number | null;
  securityEvents: unknown[];
  pendingSeq: number | null;
  hash: string;
  prevHash: string;
}

export interface Decision {
  id: string;
  createdAt: string;
  actorId: string;
  conversationId: string | null;
  campaignId: string | null;
  decisionType: string;
  status: string;
  iterations: number;
  provider: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
  durationMs: number;
  failureClass: string | null;
  toolCalls: AuditRow[];
}

export interface ChainVerification {
  verified: boolean;
  checkedRows: number;
  firstBadSeq: number | null;
  headHash: string | null;
}

/** One page of audit rows, newest first; pass `nextCursor` back for the older ones. */
export async function listAuditRows(
  session: Session,
  filter: AuditFilter,
  cursor: string | null,
): Promise<{ items: AuditRow[]; nextCursor: string | null }> {
  const query = new URLSearchParams({ limit: '25' });
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value as string);
  if (cursor) query.set('cursor', cursor);
  return json('GET', `/admin/audit-logs?${query.toString()}`, session);
}

export async function getDecision(session: Session, id: string): Promise<Decision> {
  return json<Decision>('GET', `/admin/decisions/${encodeURIComponent(id)}`, session);
}

export async function verifyAuditChain(session: Session): Promise<ChainVerification> {
  return json<ChainVerification>('GET', '/admin/audit-logs/verify', session);
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
