import { Logger } from '@nestjs/common';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler, isLegacyRequest, type ServerEventBus } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { AuthenticatedPrincipal, Credential } from '../../../application/identity/ports/access-token-service.port';
import type { TaskChanges } from '../../../application/todo/ports/task-changes.port';
import { TASKS_URI } from '../task-resources';
import { createModernMcpServer, type ModernMcpDeps } from './modern-mcp-server';

const logger = new Logger('Mcp');

/**
 * `/mcp` for clients of the 2026-07-28 revision, beside the 2025 sessions on the same path.
 * The SDK (2.x) reads the era off each request (`isLegacyRequest`: a 2026 request carries the
 * protocol version in its `_meta`) and does the wire work: `server/discover`, the `_meta`
 * envelope, `resultType`, cache fields, the `Mcp-Method`/`Mcp-Name` header checks,
 * `subscriptions/listen`. Each request gets its own server for the person its bearer token
 * names, on whichever replica it reaches; nothing is kept between requests but the database.
 */
export class ModernMcpEndpoint {
  constructor(
    private readonly deps: ModernMcpDeps,
    private readonly changes: TaskChanges,
  ) {}

  /** Whether this request is one for the 2026 revision (the rest go to the 2025 sessions). */
  async serves(req: Request): Promise<boolean> {
    if (req.method !== 'POST') return false;
    return !(await isLegacyRequest(await toWebRequest(req, req.body), req.body));
  }

  async serve(req: Request & { auth?: AuthInfo }, res: Response, principal: AuthenticatedPrincipal): Promise<void> {
    const caller = {
      context: { userId: principal.userId, source: 'mcp' as const, mode: { kind: 'run' as const } },
      credential: credentialKey(principal.credential, principal.userId),
    };
    const handler = createMcpHandler(() => createModernMcpServer(this.deps, caller), {
      legacy: 'reject',
      bus: this.busFor(principal.userId),
      onerror: (error) => logger.debug({ err: error, userId: principal.userId }, 'a 2026 MCP request was refused or failed'),
    });
    res.on('close', () => void handler.close());
    await toNodeHandler(handler)(req, res, req.body);
  }

  /** The person's own task changes, from any replica (TaskChanges rides the fleet bus): a listener hears no one else's. */
  private busFor(userId: string): ServerEventBus {
    return {
      publish: () => undefined,
      subscribe: (listener) => this.changes.subscribe(userId, () => listener({ kind: 'resource_updated', uri: TASKS_URI })),
    };
  }
}

/** Which of the person's credentials a request came with: a confirmation asked under one is answered under the same. */
function credentialKey(credential: Credential, userId: string): string {
  switch (credential.kind) {
    case 'oauth':
      return `oauth:${credential.grantId}`;
    case 'personal_token':
      return `token:${credential.tokenId}`;
    case 'session':
      return `session:${userId}:${credential.signedInAt.toISOString()}`;
  }
}
