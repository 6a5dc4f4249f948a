import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { EmailAlreadyRegisteredError, type Role, type User } from '../../../domain/identity/user';
import { type NewUser, UserRepository } from '../../../application/identity/ports/user-repository.port';
import { isUniqueViolation } from '../postgres-errors';
import { UserRecord } from '../records/user.record';

@Injectable()
export class TypeOrmUserRepository extends UserRepository {
  private readonly users: Repository<UserRecord>;

  constructor(dataSource: DataSource) {
    super();
    this.users = dataSource.getRepository(UserRecord);
  }

  async create(user: NewUser): Promise<User> {
    try {
      const result = await this.users
        .createQueryBuilder()
        .insert()
        .values({ email: user.email, passwordHash: user.passwordHash, role: user.role })
        .returning('*')
        .execute();
      return toUser(rowToRecord((result.raw as Record<string, unknown>[])[0]));
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new EmailAlreadyRegisteredError();
      throw error;
    }
  }

  async findByEmail(email: string): Promise<User | null> {
    const record = await this.users.findOneBy({ email });
    return record ? toUser(record) : null;
  }

  async findById(id: string): Promise<User | null> {
    const record = await this.users.findOneBy({ id });
    return record ? toUser(record) : null;
  }

  async updateRole(id: string, role: Role): Promise<void> {
    await this.users.update({ id }, { role });
  }
}

function rowToRecord(row: Record<string, unknown>): UserRecord {
  return Object.assign(new UserRecord(), {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    role: row.role,
    taskCounter: row.task_counter,
    createdAt: row.created_at,
  });
}

function toUser(record: UserRecord): User {
  return {
    id: record.id,
    email: record.email,
    role: record.role,
    passwordHash: record.passwordHash,
    createdAt: record.createdAt,
  };
}
