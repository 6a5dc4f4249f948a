import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Clock } from '../../application/shared/ports/clock.port';

export abstract class McpSessionSettings {
  abstract readonly idleMinutes: number;
  abstract readonly perUser: number;
  abstract readonly max: number;
}

export interface McpSession {
  readonly userId: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export class SessionsFullError extends Error {}

/**
 * The stateful /mcp sessions of this process: a session is a server and a transport with a
 * random id (122 bits from crypto.randomUUID), bound to the person who opened it. The id
 * only routes: every request still carries its bearer token, and a session answers only
 * its own person's (another's request gets the same 404 as an unknown id). Idle sessions
 * close after MCP_SESSION_IDLE_MINUTES; a person's sessions beyond MCP_SESSIONS_PER_USER
 * close least recently used first; past MCP_SESSIONS_MAX in all, no new one opens.
 */
@Injectable()
export class McpSessions implements OnModuleDestroy {
  private readonly logger = new Logger('McpSessions');
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly settings: McpSessionSettings,
    private readonly clock: Clock,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), 60_000).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * A new session for the person; `build` makes its server. The id is assigned when the
   * transport answers the initialize request, and only then is the session findable.
   * @throws SessionsFullError when the process holds MCP_SESSIONS_MAX sessions.
   */
  open(userId: string, build: (onClose: (close: () => void) => void) => Server): McpSession {
    this.closeIdle();
    if (this.sessions.size >= this.settings.max) throw new SessionsFullError();
    const own = [...this.sessions.entries()]
      .filter(([, session]) => session.userId === userId)
      .sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
    for (const [id] of own.slice(0, Math.max(0, own.length - this.settings.perUser + 1))) void this.close(id, 'over the per-person limit');

    const cleanups: (() => void)[] = [];
    const server = build((cleanup) => cleanups.push(cleanup));
    const session: McpSession = {
      userId,
      server,
      lastSeen: this.clock.now().getTime(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
        },
        onsessionclosed: (id) => {
          this.sessions.delete(id);
        },
      }),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) this.sessions.delete(session.transport.sessionId);
      cleanups.forEach((cleanup) => cleanup());
    };
    return session;
  }

  /** The person's session with this id, touched; undefined for an unknown, closed or foreign one. */
  find(id: string, userId: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session || session.userId !== userId) return undefined;
    session.lastSeen = this.clock.now().getTime();
    return session;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, 'shutting down')));
  }

  private closeIdle(): void {
    const oldest = this.clock.now().getTime() - this.settings.idleMinutes * 60_000;
    for (const [id, session] of this.sessions) if (session.lastSeen < oldest) void this.close(id, 'idle');
  }

  private async close(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.logger.log({ userId: session.userId, reason }, 'MCP session closed');
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }
}
