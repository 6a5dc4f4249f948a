import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { EmailAlreadyRegisteredError, ROLES, type Role, type User } from '../../../domain/identity/user';
import { type NewUser, UserRepository } from '../../../application/identity/ports/user-repository.port';
import { isUniqueViolation } from '../postgres-errors';
import { changeRows, raw, selectRow, selectRows, sql } from '../sql';

const USER_COLUMNS = raw(
  `id, email, role, password_hash AS "passwordHash", credentials_version AS "credentialsVersion", created_at AS "createdAt"`,
);

const USER_ROW = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  passwordHash: z.string(),
  credentialsVersion: z.number().int().nonnegative(),
  createdAt: z.date(),
}) satisfies z.ZodType<User>;

@Injectable()
export class PostgresUserRepository extends UserRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async create(user: NewUser): Promise<User> {
    try {
      const created = await selectRow(
        this.dataSource,
        sql`INSERT INTO users (email, password_hash, role) VALUES (${user.email}, ${user.passwordHash}, ${user.role}) RETURNING ${USER_COLUMNS}`,
        USER_ROW,
      );
      return created!;
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new EmailAlreadyRegisteredError();
      throw error;
    }
  }

  findByEmail(email: string): Promise<User | null> {
    return selectRow(this.dataSource, sql`SELECT ${USER_COLUMNS} FROM users WHERE email = ${email}`, USER_ROW);
  }

  findById(id: string): Promise<User | null> {
    return selectRow(this.dataSource, sql`SELECT ${USER_COLUMNS} FROM users WHERE id = ${id}`, USER_ROW);
  }

  findByRole(role: Role): Promise<User[]> {
    return selectRows(this.dataSource, sql`SELECT ${USER_COLUMNS} FROM users WHERE role = ${role} ORDER BY email`, USER_ROW);
  }

  async updateRole(id: string, role: Role): Promise<void> {
    await changeRows(this.dataSource, sql`UPDATE users SET role = ${role} WHERE id = ${id}`);
  }

  changePassword(id: string, passwordHash: string, expectedVersion: number): Promise<User | null> {
    return selectRow(
      this.dataSource,
      sql`UPDATE users SET password_hash = ${passwordHash}, credentials_version = credentials_version + 1
          WHERE id = ${id} AND credentials_version = ${expectedVersion}
          RETURNING ${USER_COLUMNS}`,
      USER_ROW,
    );
  }
}
