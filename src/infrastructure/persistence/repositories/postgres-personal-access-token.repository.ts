import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { PersonalAccessToken } from '../../../domain/identity/personal-access-token';
import { parseScopes } from '../../../domain/identity/scopes';
import { ROLES, type User } from '../../../domain/identity/user';
import {
  type NewPersonalAccessToken,
  PersonalAccessTokenRepository,
} from '../../../application/identity/ports/personal-access-token-repository.port';
import { raw, selectRow, selectRows, sql } from '../sql';

const TOKEN_COLUMNS = raw(`t.id, t.user_id AS "userId", t.name, t.scopes, t.hint, t.created_at AS "createdAt",
  t.expires_at AS "expiresAt", t.last_used_at AS "lastUsedAt", t.last_used_address AS "lastUsedAddress", t.revoked_at AS "revokedAt"`);

const TOKEN_ROW = z
  .object({
    id: z.string(),
    userId: z.string(),
    name: z.string(),
    scopes: z.string(),
    hint: z.string(),
    createdAt: z.date(),
    expiresAt: z.date(),
    lastUsedAt: z.date().nullable(),
    lastUsedAddress: z.string().nullable(),
    revokedAt: z.date().nullable(),
  })
  .transform((row): PersonalAccessToken => ({ ...row, scopes: parseScopes(row.scopes.split(' ')).scopes }));

const OWNER_COLUMNS = raw(`u.email AS "ownerEmail", u.role AS "ownerRole", u.password_hash AS "ownerPasswordHash",
  u.credentials_version AS "ownerCredentialsVersion", u.created_at AS "ownerCreatedAt"`);

const TOKEN_WITH_OWNER = z
  .object({
    token: TOKEN_ROW,
    ownerEmail: z.string(),
    ownerRole: z.enum(ROLES),
    ownerPasswordHash: z.string(),
    ownerCredentialsVersion: z.number().int().nonnegative(),
    ownerCreatedAt: z.date(),
  })
  .transform((row): { token: PersonalAccessToken; user: User } => ({
    token: row.token,
    user: {
      id: row.token.userId,
      email: row.ownerEmail,
      role: row.ownerRole,
      passwordHash: row.ownerPasswordHash,
      credentialsVersion: row.ownerCredentialsVersion,
      createdAt: row.ownerCreatedAt,
    },
  }));

@Injectable()
export class PostgresPersonalAccessTokenRepository extends PersonalAccessTokenRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  create(token: NewPersonalAccessToken, limit: number, now: Date): Promise<PersonalAccessToken | null> {
    return this.dataSource.transaction(async (manager) => {
      // The owner's row, locked until commit: two creations count one after the other.
      const owner = await selectRow(
        manager,
        sql`SELECT id FROM users WHERE id = ${token.userId} FOR NO KEY UPDATE`,
        z.object({ id: z.string() }),
      );
      if (!owner) return null;
      const active = await selectRow(
        manager,
        sql`SELECT count(*)::int AS n FROM personal_access_tokens
            WHERE user_id = ${token.userId} AND revoked_at IS NULL AND expires_at > ${now}`,
        z.object({ n: z.number() }),
      );
      if ((active?.n ?? 0) >= limit) return null;
      return selectRow(
        manager,
        sql`INSERT INTO personal_access_tokens AS t (user_id, name, scopes, token_hash, hint, created_at, expires_at)
            VALUES (${token.userId}, ${token.name}, ${token.scopes.join(' ')}, ${token.hash}, ${token.hint}, ${now}, ${token.expiresAt})
            RETURNING ${TOKEN_COLUMNS}`,
        TOKEN_ROW,
      );
    });
  }

  listByUser(userId: string): Promise<PersonalAccessToken[]> {
    return selectRows(
      this.dataSource,
      sql`SELECT ${TOKEN_COLUMNS} FROM personal_access_tokens t WHERE t.user_id = ${userId} ORDER BY t.created_at DESC, t.id`,
      TOKEN_ROW,
    );
  }

  findActiveByHash(hash: string, now: Date): Promise<{ token: PersonalAccessToken; user: User } | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${TOKEN_COLUMNS}, ${OWNER_COLUMNS}
          FROM personal_access_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL AND t.expires_at > ${now}`,
      // One flat row: the token's columns are read from it as a whole, the owner's by their prefix.
      z.preprocess((row) => ({ ...(row as object), token: row }), TOKEN_WITH_OWNER),
    );
  }

  revoke(userId: string, tokenId: string, now: Date): Promise<PersonalAccessToken | null> {
    return selectRow(
      this.dataSource,
      sql`UPDATE personal_access_tokens t SET revoked_at = ${now}
          WHERE t.id = ${tokenId} AND t.user_id = ${userId} AND t.revoked_at IS NULL
          RETURNING ${TOKEN_COLUMNS}`,
      TOKEN_ROW,
    );
  }

  async recordUse(tokenId: string, address: string, now: Date): Promise<{ previousAddress: string | null }> {
    // The address before this use, read in the same statement that replaces it.
    const row = await selectRow(
      this.dataSource,
      sql`UPDATE personal_access_tokens t SET last_used_at = ${now}, last_used_address = ${address}
          FROM (SELECT id, last_used_address FROM personal_access_tokens WHERE id = ${tokenId} FOR UPDATE) before
          WHERE t.id = before.id
          RETURNING before.last_used_address AS "previousAddress"`,
      z.object({ previousAddress: z.string().nullable() }),
    );
    return { previousAddress: row?.previousAddress ?? null };
  }
}
