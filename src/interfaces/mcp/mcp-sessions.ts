import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpSessionStore, type StoredMcpSession } from '../../application/mcp/ports/mcp-session-store.port';
import { Clock } from '../../application/shared/ports/clock.port';
import { FleetBus } from '../../application/shared/ports/fleet-bus.port';
import { type Answer, SessionTransport } from './session-transport';

export abstract class McpSessionSettings {
  abstract readonly idleMinutes: number;
  abstract readonly perUser: number;
  /** Sessions one process holds copies of at once. */
  abstract readonly max: number;
}

/** The resource URIs a session subscribed to, kept in the store and in every copy of the session. */
export interface SessionSubscriptions {
  readonly current: ReadonlySet<string>;
  /** @throws SubscriptionsFullError past MAX_SUBSCRIPTIONS. */
  change(uri: string, subscribed: boolean): Promise<void>;
}

/** What the controller builds a session's server from. */
export interface SessionServerFactory {
  (session: { readonly userId: string; readonly subscriptions: SessionSubscriptions }, onClose: (cleanup: () => void) => void): Server;
}

export interface McpSession {
  readonly id: string;
  readonly userId: string;
  readonly server: Server;
  readonly transport: SessionTransport;
  readonly subscriptions: Set<string>;
  /** When this process last served it, and when it last wrote that to the store. */
  lastSeen: number;
  touched: number;
  /** HTTP requests of the session this process is serving now (an open GET stream is one). */
  busy: number;
  /** The session's event stream, when this copy holds it (McpSessions.openStream). */
  stream?: { readonly holder: string; readonly claim: number };
  /** The newest claim on the session's event stream this process made or heard of. */
  newestClaim: number;
}

export class SessionsFullError extends Error {}
export class SubscriptionsFullError extends Error {}
/** A GET whose claim on the event stream was overtaken by a newer GET before it began. */
export class StreamTakenError extends Error {}

/** Subscriptions a session may hold: one per task resource shown, and the list. */
export const MAX_SUBSCRIPTIONS = 100;
/** A session's use is written to the store at most this often: reads stay reads. */
const TOUCH_EVERY_MS = 60_000;
const SWEEP_BATCH = 500;

/** What replicas tell each other about sessions, on the fleet bus. */
type SessionMessage =
  | { readonly kind: 'closed'; readonly session: string }
  | { readonly kind: 'subscriptions'; readonly session: string; readonly uris: readonly string[] }
  | { readonly kind: 'answer'; readonly session: string; readonly answer: Answer }
  | { readonly kind: 'stream'; readonly session: string; readonly claim: number };

/**
 * The stateful `/mcp` sessions, for a fleet (docs/decisions/0011-mcp-sessions-in-the-database.md).
 * A session lives in the store (McpSessionStore): its person, the client's `initialize`
 * params and its subscriptions. Whichever replica a request lands on serves it, from a copy
 * it holds in memory or restores from the store (the `initialize` replayed in process). What
 * one copy must tell the others travels on the fleet bus: a session ended, its subscriptions
 * changed, or the client's answer to a question another copy asked (its tool call waits
 * there). Copies are a cache: this process drops the least recently used past
 * MCP_SESSIONS_MAX and those idle for MCP_SESSION_IDLE_MINUTES, and any can come back.
 */
@Injectable()
export class McpSessions implements OnModuleDestroy {
  private readonly logger = new Logger('McpSessions');
  private readonly copies = new Map<string, McpSession>();
  private readonly restoring = new Map<string, Promise<McpSession | undefined>>();
  /** Names this process's copies' requests to clients, so an answer finds the copy that asked. */
  private readonly replica = randomUUID().slice(0, 8);
  private copiesMade = 0;
  private streamsOpened = 0;

  constructor(
    private readonly settings: McpSessionSettings,
    private readonly clock: Clock,
    private readonly store: McpSessionStore,
    private readonly bus: FleetBus,
  ) {
    bus.subscribe('bridle_mcp_sessions', (payload) => this.hear(payload));
    // Messages may have been missed: copies not in use are dropped, to be restored as stored.
    bus.onResync(() => {
      for (const session of this.copies.values()) if (session.busy === 0) void this.drop(session, 'fleet bus reconnected');
      // A claim on a stream this process holds may have been missed too.
      void this.checkStreams().catch((error: unknown) => this.logger.warn({ err: error }, 'could not check the MCP event streams'));
    });
  }

  /** Copies this process holds. */
  get size(): number {
    return this.copies.size;
  }

  /**
   * Serves an `initialize` request: a new session for the person, stored before the client
   * learns its id. Ends the person's least recently used sessions beyond MCP_SESSIONS_PER_USER.
   * @throws SessionsFullError when this process holds MCP_SESSIONS_MAX copies in use.
   */
  async open(
    userId: string,
    authInfo: AuthInfo,
    body: { params?: unknown },
    res: ServerResponse,
    build: SessionServerFactory,
  ): Promise<void> {
    this.makeRoom();
    const id = randomUUID();
    const initialize = isRecord(body.params) ? body.params : {};
    const session = this.copy(id, userId, [], build, async () => {
      const ended = await this.store.open({ id, userId, initialize }, this.clock.now(), this.settings.perUser);
      for (const other of ended) await this.announce({ kind: 'closed', session: other });
      this.copies.set(id, session);
    });
    await session.server.connect(session.transport);
    await this.serve(session, res, () => session.transport.handle(res.req, res, authInfo, body));
  }

  /**
   * The person's session with this id, from this process's copy or restored from the store;
   * undefined for an unknown, ended, idle or another person's one.
   */
  async find(id: string, userId: string, authInfo: AuthInfo, build: SessionServerFactory): Promise<McpSession | undefined> {
    const held = this.copies.get(id);
    if (held) return held.userId === userId ? this.used(held) : undefined;
    let restoring = this.restoring.get(id);
    if (!restoring) {
      restoring = this.restore(id, userId, authInfo, build).finally(() => this.restoring.delete(id));
      this.restoring.set(id, restoring);
    }
    const session = await restoring;
    return session?.userId === userId ? this.used(session) : undefined;
  }

  /** Runs one HTTP request of the session, counting it as in use until the response closes. */
  async serve(session: McpSession, res: ServerResponse, handle: () => Promise<void>): Promise<void> {
    session.busy += 1;
    res.once('close', () => (session.busy -= 1));
    await handle();
  }

  /**
   * Serves a GET: the session's one event stream across the fleet. The stream is claimed in
   * the store, taking it over from wherever it was open: the copy that held it, here or on
   * another replica, closes its stream when it hears of the newer claim (on the fleet bus, or
   * at its next checkStreams), so no notification is sent on two streams. A replica that died
   * holding the stream holds nothing back.
   * @returns false when the session is gone.
   * @throws StreamTakenError when a newer GET claimed the stream while this one was claiming it.
   */
  async openStream(session: McpSession, res: ServerResponse, handle: () => Promise<void>): Promise<boolean> {
    const holder = `${this.replica}.${(this.streamsOpened += 1)}`;
    const claim = await this.store.claimStream(session.id, holder);
    if (claim === null) return false;
    if (claim < session.newestClaim) throw new StreamTakenError();
    session.newestClaim = claim;
    this.closeStream(session);
    session.stream = { holder, claim };
    res.once('close', () => {
      if (session.stream?.holder === holder) session.stream = undefined;
    });
    void this.announce({ kind: 'stream', session: session.id, claim });
    await this.serve(session, res, handle);
    return true;
  }

  /**
   * Closes the streams this process holds whose claim another took in the store: what a
   * missed message on the fleet bus would have said. Runs every few seconds, and after the
   * bus reconnects.
   */
  async checkStreams(): Promise<void> {
    const held = [...this.copies.values()].flatMap((session) => (session.stream ? [{ session, stream: session.stream }] : []));
    if (held.length === 0) return;
    const holders = await this.store.streamHolders(held.map(({ session }) => session.id));
    for (const { session, stream } of held) {
      if (session.stream === stream && holders.get(session.id) !== stream.holder) this.closeStream(session);
    }
  }

  /** Ends the person's session everywhere. @returns whether there was one. */
  async end(id: string, userId: string): Promise<boolean> {
    if (!(await this.store.close(id, userId))) return false;
    await this.announce({ kind: 'closed', session: id });
    return true;
  }

  /** Ends sessions idle for MCP_SESSION_IDLE_MINUTES everywhere, and drops this process's idle copies. */
  async sweep(): Promise<void> {
    const now = this.clock.now().getTime();
    const before = new Date(now - this.settings.idleMinutes * 60_000);
    for (const session of this.copies.values()) {
      if (session.busy === 0 && session.lastSeen < before.getTime()) await this.drop(session, 'idle');
    }
    for (;;) {
      const ended = await this.store.closeIdle(before, SWEEP_BATCH);
      for (const id of ended) await this.announce({ kind: 'closed', session: id });
      if (ended.length < SWEEP_BATCH) break;
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.copies.values()].map((session) => this.drop(session, 'shutting down')));
  }

  private async restore(id: string, userId: string, authInfo: AuthInfo, build: SessionServerFactory): Promise<McpSession | undefined> {
    const activeSince = new Date(this.clock.now().getTime() - this.settings.idleMinutes * 60_000);
    const stored: StoredMcpSession | null = await this.store.find(id, userId, activeSince);
    if (!stored) return undefined;
    this.makeRoom();
    const session = this.copy(id, userId, stored.subscriptions, build);
    session.touched = stored.lastSeenAt.getTime();
    try {
      await session.server.connect(session.transport);
      await session.transport.restore(stored.initialize, authInfo);
    } catch (error) {
      this.logger.warn({ err: error, userId }, 'an MCP session could not be restored; the client starts a new one');
      await this.drop(session, 'not restorable');
      return undefined;
    }
    this.copies.set(id, session);
    return session;
  }

  private copy(
    id: string,
    userId: string,
    subscriptions: readonly string[],
    build: SessionServerFactory,
    onInitialized?: () => Promise<void>,
  ): McpSession {
    const cleanups: (() => void)[] = [];
    const uris = new Set(subscriptions);
    const transport = new SessionTransport(
      id,
      `${this.replica}.${(this.copiesMade += 1)}:`,
      (answer) => void this.announce({ kind: 'answer', session: id, answer }),
      onInitialized,
    );
    const server = build({ userId, subscriptions: this.subscriptionsOf(id, uris) }, (cleanup) => cleanups.push(cleanup));
    const now = this.clock.now().getTime();
    const session: McpSession = {
      id,
      userId,
      server,
      transport,
      subscriptions: uris,
      lastSeen: now,
      touched: now,
      busy: 0,
      newestClaim: 0,
    };
    transport.onclose = () => {
      if (this.copies.get(id) === session) this.copies.delete(id);
      cleanups.forEach((cleanup) => cleanup());
    };
    return session;
  }

  private subscriptionsOf(id: string, uris: Set<string>): SessionSubscriptions {
    return {
      current: uris,
      change: async (uri, subscribed) => {
        if (subscribed && !uris.has(uri) && uris.size >= MAX_SUBSCRIPTIONS) throw new SubscriptionsFullError();
        const stored = await this.store.changeSubscription(id, uri, subscribed);
        if (!stored) return;
        replace(uris, stored);
        await this.announce({ kind: 'subscriptions', session: id, uris: stored });
      },
    };
  }

  private used(session: McpSession): McpSession {
    const now = this.clock.now().getTime();
    session.lastSeen = now;
    if (now - session.touched >= TOUCH_EVERY_MS) {
      session.touched = now;
      this.store
        .touch(session.id, new Date(now))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'could not record an MCP session’s use'));
    }
    return session;
  }

  /** Drops the least recently used copies not in use, to make room for one more. */
  private makeRoom(): void {
    if (this.copies.size < this.settings.max) return;
    const idle = [...this.copies.values()].filter((session) => session.busy === 0).sort((a, b) => a.lastSeen - b.lastSeen);
    if (idle.length === 0) throw new SessionsFullError();
    for (const session of idle.slice(0, this.copies.size - this.settings.max + 1)) void this.drop(session, 'room for another');
  }

  private async drop(session: McpSession, reason: string): Promise<void> {
    if (this.copies.get(session.id) === session) this.copies.delete(session.id);
    this.logger.debug({ userId: session.userId, reason }, 'MCP session copy dropped');
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }

  private async announce(message: SessionMessage): Promise<void> {
    try {
      await this.bus.publish('bridle_mcp_sessions', JSON.stringify(message));
    } catch (error) {
      this.logger.warn({ err: error, kind: message.kind }, 'could not tell the other replicas about an MCP session');
    }
  }

  private hear(payload: string): void {
    let message: SessionMessage;
    try {
      message = JSON.parse(payload) as SessionMessage;
    } catch {
      return;
    }
    const session = this.copies.get(message.session);
    if (!session) return;
    if (message.kind === 'closed') void this.drop(session, 'ended');
    else if (message.kind === 'subscriptions') replace(session.subscriptions, message.uris);
    else if (message.kind === 'stream') this.streamClaimed(session, message.claim);
    else session.transport.deliver(message.answer);
  }

  /** Another GET claimed the session's stream: this copy's goes if it is older. */
  private streamClaimed(session: McpSession, claim: number): void {
    session.newestClaim = Math.max(session.newestClaim, claim);
    if (session.stream && session.stream.claim < claim) this.closeStream(session);
  }

  private closeStream(session: McpSession): void {
    session.stream = undefined;
    session.transport.closeStream();
  }
}

function replace(set: Set<string>, values: readonly string[]): void {
  set.clear();
  for (const value of values) set.add(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
