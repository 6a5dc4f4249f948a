import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import jwt from 'jsonwebtoken';

/**
 * Closed-loop load on `POST /api/:userId/chat`: `concurrency` workers, each sending its next
 * message as soon as the previous reply came, each its own user and conversation. A worker
 * starts a new conversation every CONVERSATION_TURNS turns and moves to its next user every
 * USER_TURNS turns (Bridle keeps at most 1 000 tasks a person; the reference's load generator
 * also starts new conversations as it goes).
 *
 * Message mixes:
 * - add-only: "add buy milk <n>", one tool call (add_task) a turn;
 * - mixed: the cycle "add bench item <n>" → "list my pending tasks" → "mark task <k> done" →
 *   "delete task <k>" (Bridle asks for confirmation) → "yes delete" (the deletion), every
 *   turn one tool call or the confirmation question.
 * Every reply is checked: for Bridle, that the expected tool ran and succeeded; for the
 * reference, that it answered 200 with a conversation id. More than 1 % failed turns stop
 * the run.
 */

export type Mix = 'add-only' | 'mixed';
export type Kind = 'add' | 'list' | 'complete' | 'delete' | 'confirm';
export const KINDS: readonly Kind[] = ['add', 'list', 'complete', 'delete', 'confirm'];

export const CONVERSATION_TURNS = 25;
export const USER_TURNS = 250;
const MAX_FAILURE_RATE = 0.01;
const REQUEST_TIMEOUT_MS = 30_000;
/** Below the 5 s keep-alive timeout of the services' HTTP servers (Node's default). */
const IDLE_SOCKET_MS = 4_000;
const CHUNK_DEADLINE_MS = 15 * 60_000;

export interface Principal {
  readonly userId: string;
  readonly token: string;
}

interface Reply {
  readonly status: number;
  readonly body: string;
}

export function send(agent: Agent | undefined, port: number, method: string, path: string, body?: unknown, token?: string): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = {};
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    if (token) headers.authorization = `Bearer ${token}`;
    const req = request({ host: '127.0.0.1', port, method, path, agent: agent ?? false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** How many users `concurrency` workers need for `turns` turns in all. */
export function usersNeeded(concurrency: number, turns: number): number {
  return concurrency * Math.max(1, Math.ceil(Math.ceil(turns / concurrency) / USER_TURNS));
}

/** Accounts on Bridle: registered and logged in over HTTP (scrypt: a few at a time). */
export async function bridleUsers(port: number, count: number, tag: string): Promise<Principal[]> {
  const users: Principal[] = [];
  for (let batch = 0; batch < count; batch += 4) {
    const created = await Promise.all(
      Array.from({ length: Math.min(4, count - batch) }, async (_, offset) => {
        const index = batch + offset;
        const credentials = { email: `bench-${tag}-${index}@example.com`, password: `bench password ${tag} ${index}` };
        const registered = await send(undefined, port, 'POST', '/auth/register', credentials);
        if (registered.status !== 201) throw new Error(`register ${index}: HTTP ${registered.status} ${registered.body}`);
        const login = await send(undefined, port, 'POST', '/auth/login', credentials);
        if (login.status !== 200) throw new Error(`login ${index}: HTTP ${login.status} ${login.body}`);
        const { accessToken, userId } = JSON.parse(login.body) as { accessToken: string; userId: string };
        return { userId, token: accessToken };
      }),
    );
    users.push(...created);
  }
  return users;
}

/** Users of the reference: it has no accounts, only tokens signed with its secret. */
export function referenceUsers(count: number, secret: string): Principal[] {
  return Array.from({ length: count }, () => {
    const userId = randomUUID();
    return { userId, token: jwt.sign({ sub: userId }, secret, { algorithm: 'HS256', expiresIn: '2h' }) };
  });
}

interface BridleReply {
  conversationId?: string;
  decision?: { type?: string };
  toolCalls?: { tool?: string; success?: boolean; result?: { task?: { number?: number } }; error?: { code?: string } }[];
}

interface Worker {
  readonly users: readonly Principal[];
  user: number;
  turnsWithUser: number;
  conversationId: string | undefined;
  turnsInConversation: number;
  /** Position in the mixed cycle (0 = add). */
  step: number;
  item: number;
  taskNumber: number | undefined;
}

export interface LoadStats {
  readonly latencies: number[];
  readonly byKind: Record<Kind, number[]>;
  sent: number;
  failures: number;
  unexpected: number;
  readonly samples: string[];
}

export function newStats(): LoadStats {
  return {
    latencies: [],
    byKind: { add: [], list: [], complete: [], delete: [], confirm: [] },
    sent: 0,
    failures: 0,
    unexpected: 0,
    samples: [],
  };
}

export interface LoadOptions {
  readonly system: 'bridle' | 'reference';
  readonly mix: Mix;
  readonly concurrency: number;
  readonly port: number;
  readonly users: readonly Principal[];
  /** Turns the whole run will send (warm-up and measured): the failure budget is 1 % of it. */
  readonly plannedTurns: number;
}

/** The workers of one target; each call to run() sends that many more turns and carries on where the last stopped. */
export class Load {
  private readonly agent: Agent;
  private readonly workers: Worker[];
  readonly stats = newStats();

  constructor(private readonly options: LoadOptions) {
    // An idle kept-alive socket is closed here before the service closes it (Node's HTTP
    // server: after 5 s idle), so a request never meets a socket as the service closes it
    // ("socket hang up"); in side-by-side runs one side's sockets idle through the other's chunk.
    this.agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, timeout: IDLE_SOCKET_MS });
    const perWorker = Math.floor(options.users.length / options.concurrency);
    if (perWorker < 1) throw new Error(`${options.users.length} users for ${options.concurrency} workers`);
    this.workers = Array.from({ length: options.concurrency }, (_, index) => ({
      users: options.users.slice(index * perWorker, (index + 1) * perWorker),
      user: 0,
      turnsWithUser: 0,
      conversationId: undefined,
      turnsInConversation: 0,
      step: 0,
      item: 1,
      taskNumber: undefined,
    }));
  }

  /**
   * Sends `turns` turns; `measured` turns have their latency kept, and `onTurn` is called
   * after each with how many of this call's turns are done.
   */
  async run(turns: number, measured: boolean, onTurn?: (done: number) => void): Promise<void> {
    let remaining = turns;
    let done = 0;
    const deadline = performance.now() + CHUNK_DEADLINE_MS;
    await Promise.all(
      this.workers.map(async (worker) => {
        try {
          while (remaining > 0) {
            if (performance.now() > deadline) throw new Error(`${turns} turns took longer than ${CHUNK_DEADLINE_MS / 60_000} minutes`);
            remaining--;
            const { kind, elapsed } = await this.turn(worker);
            if (measured) {
              this.stats.latencies.push(elapsed);
              this.stats.byKind[kind].push(elapsed);
            }
            done++;
            onTurn?.(done);
          }
        } catch (error) {
          remaining = 0; // the other workers stop after their current turn
          throw error;
        }
      }),
    );
  }

  close(): void {
    this.agent.destroy();
  }

  private message(worker: Worker): { kind: Kind; text: string } {
    if (this.options.mix === 'add-only') return { kind: 'add', text: `add buy milk ${worker.item}` };
    switch (worker.step) {
      case 0:
        return { kind: 'add', text: `add bench item ${worker.item}` };
      case 1:
        return { kind: 'list', text: 'list my pending tasks' };
      case 2:
        return { kind: 'complete', text: `mark task ${worker.taskNumber} done` };
      case 3:
        return { kind: 'delete', text: `delete task ${worker.taskNumber}` };
      default:
        return { kind: 'confirm', text: 'yes delete' };
    }
  }

  private async turn(worker: Worker): Promise<{ kind: Kind; elapsed: number }> {
    const principal = worker.users[worker.user];
    const { kind, text } = this.message(worker);
    const body = worker.conversationId ? { message: text, conversationId: worker.conversationId } : { message: text };
    const started = performance.now();
    let reply: Reply | undefined;
    let error: unknown;
    try {
      reply = await send(this.agent, this.options.port, 'POST', `/api/${principal.userId}/chat`, body, principal.token);
    } catch (caught) {
      error = caught;
    }
    const elapsed = performance.now() - started;
    const stats = this.stats;
    stats.sent++;
    if (reply?.status === 200) {
      const parsed = JSON.parse(reply.body) as BridleReply;
      worker.conversationId ??= parsed.conversationId;
      if (!this.advance(worker, kind, parsed)) {
        stats.unexpected++;
        if (stats.samples.length < 5) stats.samples.push(`unexpected ${kind} reply: ${reply.body.slice(0, 300)}`);
        worker.step = 0; // start the cycle over so one odd reply does not derail the rest
      }
    } else {
      stats.failures++;
      if (stats.samples.length < 5)
        stats.samples.push(reply ? `HTTP ${reply.status} on ${kind}: ${reply.body.slice(0, 300)}` : `${kind}: ${String(error)}`);
      worker.step = 0;
      if (stats.failures > Math.max(1, MAX_FAILURE_RATE * this.options.plannedTurns)) {
        throw new Error(`more than 1 % of the turns failed (${stats.failures}): ${stats.samples.join(' | ')}`);
      }
    }
    if (worker.step === 0) this.rotate(worker);
    return { kind, elapsed };
  }

  /** Moves the worker on; false when the reply did not take the expected path. */
  private advance(worker: Worker, kind: Kind, reply: BridleReply): boolean {
    worker.turnsInConversation++;
    worker.turnsWithUser++;
    if (this.options.system === 'reference') {
      worker.item++;
      return typeof reply.conversationId === 'string';
    }
    const call = reply.toolCalls?.[0];
    switch (kind) {
      case 'add': {
        worker.item++;
        const n = call?.tool === 'add_task' && call.success ? call.result?.task?.number : undefined;
        if (typeof n !== 'number') return false;
        if (this.options.mix === 'mixed') {
          worker.taskNumber = n;
          worker.step = 1;
        }
        return true;
      }
      case 'list':
        worker.step = 2;
        return call?.tool === 'list_tasks' && call.success === true;
      case 'complete':
        worker.step = 3;
        return call?.tool === 'complete_task' && call.success === true;
      case 'delete':
        worker.step = 4;
        return reply.decision?.type === 'REQUEST_CONFIRMATION' && call?.error?.code === 'CONFIRMATION_REQUIRED';
      case 'confirm':
        worker.step = 0;
        worker.taskNumber = undefined;
        return call?.tool === 'delete_task' && call.success === true;
    }
  }

  /** At the end of a cycle: a new conversation every CONVERSATION_TURNS turns, the next user every USER_TURNS. */
  private rotate(worker: Worker): void {
    if (worker.turnsInConversation >= CONVERSATION_TURNS) {
      worker.conversationId = undefined;
      worker.turnsInConversation = 0;
    }
    if (worker.turnsWithUser >= USER_TURNS && worker.user + 1 < worker.users.length) {
      worker.user++;
      worker.turnsWithUser = 0;
      worker.conversationId = undefined;
      worker.turnsInConversation = 0;
    }
  }
}
