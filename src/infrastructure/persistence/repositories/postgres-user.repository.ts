import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { EmailAlreadyRegisteredError, type Role, type User } from '../../../domain/identity/user';
import { type NewUser, UserRepository } from '../../../application/identity/ports/user-repository.port';
import { isUniqueViolation } from '../postgres-errors';
import { UserRecord } from '../records/user.record';

@Injectable()
export class PostgresUserRepository extends UserRepository {
  private readonly users: Repository<UserRecord>;

  constructor(dataSource: DataSource) {
    super();
    this.users = dataSource.getRepository(UserRecord);
  }

  async create(user: NewUser): Promise<User> {
    try {
      await this.users.insert({ email: user.email, passwordHash: user.passwordHash, role: user.role });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new EmailAlreadyRegisteredError();
      throw error;
    }
    return toUser(await this.users.findOneByOrFail({ email: user.email }));
  }

  async findByEmail(email: string): Promise<User | null> {
    const record = await this.users.findOneBy({ email });
    return record ? toUser(record) : null;
  }

  async findById(id: string): Promise<User | null> {
    const record = await this.users.findOneBy({ id });
    return record ? toUser(record) : null;
  }

  async findByRole(role: Role): Promise<User[]> {
    return (await this.users.find({ where: { role }, order: { email: 'ASC' } })).map(toUser);
  }

  async updateRole(id: string, role: Role): Promise<void> {
    await this.users.update({ id }, { role });
  }
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
