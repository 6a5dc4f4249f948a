import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { PolicyAccounts } from '../../../application/policy/ports/policy-accounts.port';
import { ROLES, type Role } from '../../../domain/identity/user';
import { selectRow, selectRows, sql } from '../sql';

const ACCOUNT_ROW = z.object({ id: z.string(), email: z.string() });
const ROLE_ROW = z.object({ role: z.enum(ROLES) });

/** The accounts a policy names, read from users by their unique email in one statement, and a caller's role. */
@Injectable()
export class DatabasePolicyAccounts extends PolicyAccounts {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async idsByEmail(emails: readonly string[]): Promise<ReadonlyMap<string, string>> {
    if (emails.length === 0) return new Map();
    // Emails are stored in lower case (normalizeEmail), as readPolicy leaves a rule's.
    const rows = await selectRows(this.dataSource, sql`SELECT id, email FROM users WHERE email = ANY(${emails}::text[])`, ACCOUNT_ROW);
    return new Map(rows.map((row) => [row.email, row.id]));
  }

  async roleOf(userId: string): Promise<Role | null> {
    const row = await selectRow(this.dataSource, sql`SELECT role FROM users WHERE id = ${userId}`, ROLE_ROW);
    return row?.role ?? null;
  }
}
