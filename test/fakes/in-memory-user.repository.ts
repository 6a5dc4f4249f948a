import { randomUUID } from 'node:crypto';
import { type NewUser, UserRepository } from '../../src/application/identity/ports/user-repository.port';
import { EmailAlreadyRegisteredError, type Role, type User } from '../../src/domain/identity/user';

export class InMemoryUserRepository extends UserRepository {
  readonly users = new Map<string, User>();

  create(user: NewUser): Promise<User> {
    if ([...this.users.values()].some((existing) => existing.email === user.email)) {
      return Promise.reject(new EmailAlreadyRegisteredError());
    }
    const created: User = { ...user, id: randomUUID(), credentialsVersion: 0, createdAt: new Date() };
    this.users.set(created.id, created);
    return Promise.resolve(created);
  }

  findByEmail(email: string): Promise<User | null> {
    return Promise.resolve([...this.users.values()].find((user) => user.email === email) ?? null);
  }

  findById(id: string): Promise<User | null> {
    return Promise.resolve(this.users.get(id) ?? null);
  }

  findByRole(role: Role): Promise<User[]> {
    const found = [...this.users.values()].filter((user) => user.role === role);
    return Promise.resolve(found.sort((a, b) => a.email.localeCompare(b.email)));
  }

  updateRole(id: string, role: Role): Promise<void> {
    const user = this.users.get(id);
    if (user) this.users.set(id, { ...user, role });
    return Promise.resolve();
  }

  changePassword(id: string, passwordHash: string, expectedVersion: number): Promise<User | null> {
    const user = this.users.get(id);
    if (!user || user.credentialsVersion !== expectedVersion) return Promise.resolve(null);
    const changed: User = { ...user, passwordHash, credentialsVersion: user.credentialsVersion + 1 };
    this.users.set(id, changed);
    return Promise.resolve(changed);
  }
}
