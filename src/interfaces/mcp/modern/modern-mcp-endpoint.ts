import { Logger } from '@nestjs/common';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { SUPPORTED_PROTOCOL_VERSIONS as LEGACY_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { type AuthInfo, createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { AuthenticatedPrincipal, Credential } from '../../../application/identity/ports/access-token-service.port';
import type { TaskChanges } from '../../../application/todo/ports/task-changes.port';
import { endOnDrain } from '../../http/graceful-shutdown';
import { isListenRequest, listenedUris, ListenStreams, personalBus, refuseListen, servedListen } from './listen-streams';
import { createModernMcpServer, type ModernMcpDeps } from './modern-mcp-server';

const logger = new Logger('Mcp');

/**
 * `/mcp` for clients of the 2026-07-28 revision, beside the 2025 sessions on the same path.
 * The SDK (2.x) reads the era off each request (`isLegacyRequest`: a 2026 request carries the
 * protocol version in its `_meta`) and does the wire work: `server/discover`, the `_meta`
 * envelope, `resultType`, cache fields, the `Mcp-Method`/`Mcp-Name` header checks,
 * `subscriptions/listen`. Each request gets its own server for the person its bearer token
 * names, on whichever replica it reaches; nothing is kept between requests but the database.
 * A listen stream hears the person's task changes from every replica (listen-streams.ts), is
 * limited per person on each replica, and is ended with its result when the server drains.
 */
export class ModernMcpEndpoint {
  private readonly streams: ListenStreams;

  constructor(
    private readonly deps: ModernMcpDeps,
    private readonly changes: TaskChanges,
    listenStreamsPerPerson: number,
  ) {
    this.streams = new ListenStreams(listenStreamsPerPerson);
  }

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
    const listen = isListenRequest(req.body) ? servedListen(req.body) : undefined;
    if (listen) {
      const release = this.streams.take(principal.userId);
      if (!release) return refuseListen(res, listen, this.streams.perPerson);
      res.once('close', release);
    }
    const handler = createMcpHandler(() => createModernMcpServer(this.deps, caller), {
      legacy: 'reject',
      // Only a listen subscribes to it; any other request's handler never does.
      bus: personalBus(this.changes, principal.userId, listen ? listenedUris(listen) : []),
      onerror: (error) => logger.debug({ err: error, userId: principal.userId }, 'a 2026 MCP request was refused or failed'),
    });
    // The client gone: the SDK ends the stream on the request's abort; this ends what is left.
    res.on('close', () => void handler.close());
    // A shutdown ends each listen at once with its result (the specification's graceful end).
    if (listen) endOnDrain(res, () => void handler.close());
    if (isDiscovery(req.body)) return this.discover(handler, req, res);
    await toNodeHandler(handler)(req, res, listen ?? req.body);
  }

  /**
   * `server/discover` as the SDK answers it, with the 2025 revisions this endpoint also serves
   * added to `supportedVersions` (the SDK's modern entry lists only its own: a client that
   * knows only 2025 learns here that `initialize` works too).
   */
  private async discover(handler: McpHttpHandler, req: Request & { auth?: AuthInfo }, res: Response): Promise<void> {
    const answer = await handler.fetch(await toWebRequest(req, req.body), { authInfo: req.auth, parsedBody: req.body });
    const body = (await answer.json()) as { result?: { supportedVersions?: string[] } };
    if (Array.isArray(body.result?.supportedVersions)) {
      body.result.supportedVersions = [...new Set([...body.result.supportedVersions, ...LEGACY_PROTOCOL_VERSIONS])];
    }
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length') res.setHeader(name, value);
    });
    res.status(answer.status).json(body);
  }
}

function isDiscovery(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === 'server/discover';
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
