import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { ClientRegistration } from '../../../domain/identity/oauth';
import { parseScopes, type Scope } from '../../../domain/identity/scopes';
import {
  type AuthorizationRequest,
  type NewAuthorizationRequest,
  type OAuthClient,
  type OAuthGrant,
  OAuthStore,
  type OAuthSweepKind,
  type StoredCode,
  type StoredToken,
  type TokenPair,
} from '../../../application/identity/oauth/ports/oauth-store.port';
import { changeRows, raw, run, type Sql, selectRow, selectRows, sql, type Statement } from '../sql';

const scopes = z.string().transform((value): Scope[] => parseScopes(value.split(' ')).scopes);
const joined = (list: readonly Scope[]) => list.join(' ');

/** Client columns under the alias `c`, prefixed so that they sit beside another table's. */
const CLIENT_COLUMNS = raw(`c.id AS "clientId", c.redirect_uris AS "clientRedirectUris", c.client_name AS "clientName",
  c.client_uri AS "clientUri", c.software_id AS "clientSoftwareId", c.software_version AS "clientSoftwareVersion",
  c.created_at AS "clientCreatedAt"`);

const CLIENT_FIELDS = {
  clientId: z.string(),
  clientRedirectUris: z.array(z.string()),
  clientName: z.string().nullable(),
  clientUri: z.string().nullable(),
  clientSoftwareId: z.string().nullable(),
  clientSoftwareVersion: z.string().nullable(),
  clientCreatedAt: z.date(),
};

function clientOf(row: z.output<z.ZodObject<typeof CLIENT_FIELDS>>): OAuthClient {
  const registration: ClientRegistration = {
    redirectUris: row.clientRedirectUris,
    clientName: row.clientName,
    clientUri: row.clientUri,
    softwareId: row.clientSoftwareId,
    softwareVersion: row.clientSoftwareVersion,
  };
  return { id: row.clientId, registration, createdAt: row.clientCreatedAt };
}

const CLIENT_ROW = z.object(CLIENT_FIELDS).transform(clientOf);

const REQUEST_ROW = z
  .object({
    id: z.string(),
    redirectUri: z.string(),
    codeChallenge: z.string(),
    scopes,
    state: z.string().nullable(),
    resource: z.string(),
    expiresAt: z.date(),
    answeredAt: z.date().nullable(),
    ...CLIENT_FIELDS,
  })
  .transform((row): AuthorizationRequest => ({
    id: row.id,
    clientId: row.clientId,
    client: clientOf(row),
    redirectUri: row.redirectUri,
    codeChallenge: row.codeChallenge,
    scopes: row.scopes,
    state: row.state,
    resource: row.resource,
    expiresAt: row.expiresAt,
    answeredAt: row.answeredAt,
  }));

const GRANT_COLUMNS = raw(`g.id, g.user_id AS "userId", g.scopes, g.resource, g.created_at AS "createdAt",
  g.last_used_at AS "lastUsedAt", g.revoked_at AS "revokedAt", ${CLIENT_COLUMNS.text}`);

const GRANT_ROW = z
  .object({
    id: z.string(),
    userId: z.string(),
    scopes,
    resource: z.string(),
    createdAt: z.date(),
    lastUsedAt: z.date().nullable(),
    revokedAt: z.date().nullable(),
    ...CLIENT_FIELDS,
  })
  .transform((row): OAuthGrant => ({
    id: row.id,
    userId: row.userId,
    client: clientOf(row),
    scopes: row.scopes,
    resource: row.resource,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  }));

const CODE_ROW = z.object({
  grantId: z.string(),
  userId: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  codeChallenge: z.string(),
  scopes,
  resource: z.string(),
  expiresAt: z.date(),
  usedAt: z.date().nullable(),
}) satisfies z.ZodType<StoredCode, unknown>;

const TOKEN_ROW = z.object({
  id: z.string(),
  kind: z.enum(['access', 'refresh']),
  grantId: z.string(),
  userId: z.string(),
  clientId: z.string(),
  scopes,
  resource: z.string(),
  expiresAt: z.date(),
  usedAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
  grantRevokedAt: z.date().nullable(),
  grantLastUsedAt: z.date().nullable(),
}) satisfies z.ZodType<StoredToken, unknown>;

const ID_ROW = z.object({ id: z.string() });

@Injectable()
export class PostgresOAuthStore extends OAuthStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async registerClient(id: string, registration: ClientRegistration, now: Date): Promise<OAuthClient> {
    const client = await selectRow(
      this.dataSource,
      sql`INSERT INTO oauth_clients AS c (id, redirect_uris, client_name, client_uri, software_id, software_version, created_at)
          VALUES (${id}, ${JSON.stringify(registration.redirectUris)}, ${registration.clientName}, ${registration.clientUri},
                  ${registration.softwareId}, ${registration.softwareVersion}, ${now})
          RETURNING ${CLIENT_COLUMNS}`,
      CLIENT_ROW,
    );
    return client!;
  }

  async saveClient(id: string, registration: ClientRegistration, now: Date): Promise<OAuthClient> {
    const client = await selectRow(
      this.dataSource,
      sql`INSERT INTO oauth_clients AS c (id, redirect_uris, client_name, client_uri, software_id, software_version, created_at)
          VALUES (${id}, ${JSON.stringify(registration.redirectUris)}, ${registration.clientName}, ${registration.clientUri},
                  ${registration.softwareId}, ${registration.softwareVersion}, ${now})
          ON CONFLICT (id) DO UPDATE SET redirect_uris = excluded.redirect_uris, client_name = excluded.client_name,
            client_uri = excluded.client_uri, software_id = excluded.software_id, software_version = excluded.software_version
          RETURNING ${CLIENT_COLUMNS}`,
      CLIENT_ROW,
    );
    return client!;
  }

  findClient(id: string): Promise<OAuthClient | null> {
    return selectRow(this.dataSource, sql`SELECT ${CLIENT_COLUMNS} FROM oauth_clients c WHERE c.id = ${id}`, CLIENT_ROW);
  }

  async createRequest(request: NewAuthorizationRequest, now: Date): Promise<string> {
    const row = await selectRow(
      this.dataSource,
      sql`INSERT INTO oauth_authorization_requests (client_id, redirect_uri, code_challenge, scopes, state, resource, created_at, expires_at)
          VALUES (${request.clientId}, ${request.redirectUri}, ${request.codeChallenge}, ${joined(request.scopes)}, ${request.state},
                  ${request.resource}, ${now}, ${request.expiresAt})
          RETURNING id`,
      ID_ROW,
    );
    return row!.id;
  }

  findRequest(id: string): Promise<AuthorizationRequest | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT r.id, r.redirect_uri AS "redirectUri", r.code_challenge AS "codeChallenge", r.scopes, r.state, r.resource,
                 r.expires_at AS "expiresAt", r.answered_at AS "answeredAt", ${CLIENT_COLUMNS}
          FROM oauth_authorization_requests r JOIN oauth_clients c ON c.id = r.client_id
          WHERE r.id = ${id}`,
      REQUEST_ROW,
    );
  }

  async answerRequest(id: string, answer: 'approved' | 'denied', userId: string, now: Date): Promise<boolean> {
    const changed = await changeRows(
      this.dataSource,
      sql`UPDATE oauth_authorization_requests SET answer = ${answer}, answered_by = ${userId}, answered_at = ${now}
          WHERE id = ${id} AND answered_at IS NULL AND expires_at > ${now}`,
    );
    return changed === 1;
  }

  async upsertGrant(userId: string, clientId: string, resource: string, wanted: readonly Scope[], now: Date) {
    // The live grant's scopes and the new ones, together; parseScopes puts them back in order when read.
    const row = await selectRow(
      this.dataSource,
      sql`WITH upserted AS (
            INSERT INTO oauth_grants AS g (user_id, client_id, scopes, resource, created_at)
            VALUES (${userId}, ${clientId}, ${joined(wanted)}, ${resource}, ${now})
            ON CONFLICT (user_id, client_id, resource) WHERE revoked_at IS NULL DO UPDATE
              SET scopes = (SELECT string_agg(DISTINCT s, ' ') FROM unnest(string_to_array(g.scopes || ' ' || EXCLUDED.scopes, ' ')) s)
            RETURNING g.*, (xmax = 0) AS created
          )
          SELECT g.id, g.user_id AS "userId", g.scopes, g.resource, g.created_at AS "createdAt", g.last_used_at AS "lastUsedAt",
                 g.revoked_at AS "revokedAt", g.created, ${CLIENT_COLUMNS}
          FROM upserted g JOIN oauth_clients c ON c.id = g.client_id`,
      z.object({ created: z.boolean() }).passthrough(),
    );
    return { grant: GRANT_ROW.parse(row), created: row!.created };
  }

  listGrants(userId: string): Promise<OAuthGrant[]> {
    return selectRows(
      this.dataSource,
      sql`SELECT ${GRANT_COLUMNS} FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
          WHERE g.user_id = ${userId} AND g.revoked_at IS NULL
          ORDER BY g.created_at DESC, g.id`,
      GRANT_ROW,
    );
  }

  revokeGrant(grantId: string, now: Date, userId: string): Promise<OAuthGrant | null> {
    return this.dataSource.transaction(async (manager) => {
      const grant = await selectRow(
        manager,
        sql`UPDATE oauth_grants g SET revoked_at = ${now} FROM oauth_clients c
            WHERE g.id = ${grantId} AND g.user_id = ${userId} AND g.revoked_at IS NULL AND c.id = g.client_id
            RETURNING ${GRANT_COLUMNS}`,
        GRANT_ROW,
      );
      if (grant) await run(manager, sql`UPDATE oauth_tokens SET revoked_at = ${now} WHERE grant_id = ${grantId} AND revoked_at IS NULL`);
      return grant;
    });
  }

  async touchGrant(grantId: string, now: Date): Promise<void> {
    await run(
      this.dataSource,
      sql`UPDATE oauth_grants SET last_used_at = ${now}
          WHERE id = ${grantId} AND (last_used_at IS NULL OR last_used_at < ${now})`,
    );
  }

  async storeCode(hash: string, requestId: string, grantId: string, allowed: readonly Scope[], expiresAt: Date): Promise<void> {
    await run(
      this.dataSource,
      sql`INSERT INTO oauth_authorization_codes (code_hash, request_id, grant_id, scopes, expires_at)
          VALUES (${hash}, ${requestId}, ${grantId}, ${joined(allowed)}, ${expiresAt})`,
    );
  }

  findCode(hash: string): Promise<StoredCode | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT k.grant_id AS "grantId", g.user_id AS "userId", r.client_id AS "clientId", r.redirect_uri AS "redirectUri",
                 r.code_challenge AS "codeChallenge", k.scopes, r.resource, k.expires_at AS "expiresAt", k.used_at AS "usedAt"
          FROM oauth_authorization_codes k
          JOIN oauth_authorization_requests r ON r.id = k.request_id
          JOIN oauth_grants g ON g.id = k.grant_id
          WHERE k.code_hash = ${hash}`,
      CODE_ROW,
    );
  }

  async useCode(hash: string, now: Date): Promise<boolean> {
    const changed = await changeRows(
      this.dataSource,
      sql`UPDATE oauth_authorization_codes SET used_at = ${now} WHERE code_hash = ${hash} AND used_at IS NULL`,
    );
    return changed === 1;
  }

  async issueTokens(grantId: string, tokens: TokenPair, now: Date, parentId?: string): Promise<void> {
    await this.dataSource.transaction((manager) => insertPair(manager, grantId, tokens, parentId ?? null, now));
  }

  rotateRefreshToken(refreshId: string, grantId: string, successors: TokenPair, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const spent = await changeRows(
        manager,
        sql`UPDATE oauth_tokens SET used_at = ${now} WHERE id = ${refreshId} AND kind = 'refresh' AND used_at IS NULL AND revoked_at IS NULL`,
      );
      if (spent !== 1) return false;
      await insertPair(manager, grantId, successors, refreshId, now);
      return true;
    });
  }

  findToken(hash: string): Promise<StoredToken | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT t.id, t.kind, t.grant_id AS "grantId", g.user_id AS "userId", g.client_id AS "clientId", t.scopes, g.resource,
                 t.expires_at AS "expiresAt", t.used_at AS "usedAt", t.revoked_at AS "revokedAt",
                 g.revoked_at AS "grantRevokedAt", g.last_used_at AS "grantLastUsedAt"
          FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
          WHERE t.token_hash = ${hash}`,
      TOKEN_ROW,
    );
  }

  async revokeToken(id: string, now: Date): Promise<void> {
    await run(this.dataSource, sql`UPDATE oauth_tokens SET revoked_at = ${now} WHERE id = ${id} AND revoked_at IS NULL`);
  }

  sweep(kind: OAuthSweepKind, before: Date, limit: number): Promise<number> {
    return changeRows(this.dataSource, SWEEPS[kind](before, limit));
  }
}

/**
 * One DELETE per kind, each reading its rows by an index (migration 1766534400000). A
 * grant's tokens and codes and a request's code go with it (ON DELETE CASCADE); a deleted
 * token's successors keep living (their parent_id becomes NULL).
 */
const SWEEPS: Record<OAuthSweepKind, (before: Date, limit: number) => Statement> = {
  tokens: (before, limit) =>
    sql`DELETE FROM oauth_tokens WHERE id IN (
          SELECT id FROM oauth_tokens WHERE expires_at < ${before} ORDER BY expires_at LIMIT ${limit})`,
  grants: (before, limit) =>
    sql`DELETE FROM oauth_grants WHERE id IN (
          SELECT id FROM oauth_grants WHERE revoked_at < ${before} ORDER BY revoked_at LIMIT ${limit})`,
  requests: (before, limit) =>
    sql`DELETE FROM oauth_authorization_requests WHERE id IN (
          SELECT id FROM oauth_authorization_requests WHERE expires_at < ${before} ORDER BY expires_at LIMIT ${limit})`,
  clients: (before, limit) =>
    sql`DELETE FROM oauth_clients WHERE id IN (
          SELECT c.id FROM oauth_clients c
          WHERE c.created_at < ${before}
            AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)
            AND NOT EXISTS (SELECT 1 FROM oauth_authorization_requests r WHERE r.client_id = c.id)
          ORDER BY c.created_at LIMIT ${limit})`,
};

async function insertPair(db: Sql, grantId: string, tokens: TokenPair, parentId: string | null, now: Date): Promise<void> {
  const scopeText = joined(tokens.scopes);
  await run(
    db,
    sql`INSERT INTO oauth_tokens (grant_id, kind, token_hash, scopes, parent_id, created_at, expires_at)
        VALUES (${grantId}, 'access', ${tokens.accessHash}, ${scopeText}, ${parentId}, ${now}, ${tokens.accessExpiresAt}),
               (${grantId}, 'refresh', ${tokens.refreshHash}, ${scopeText}, ${parentId}, ${now}, ${tokens.refreshExpiresAt})`,
  );
}
