import type { DataSource } from 'typeorm';
import type { NewUser } from '../../src/application/identity/ports/user-repository.port';
import type { User } from '../../src/domain/identity/user';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { uniqueEmail } from '../support/accounts';

/**
 * Users. Over HTTP, a person signs up and in with `signUpAndIn` (test/support/accounts.ts), or
 * `useTestApp(…).user()` for the people a whole block shares; these are for a repository.
 */

/** What the repository creates a user from: a new address, a stand-in hash (nobody signs in with it), the plain role. */
export function aNewUser(overrides: Partial<NewUser> = {}): NewUser {
  return { email: uniqueEmail(), passwordHash: 'scrypt$x', role: 'user', ...overrides };
}

/** A user row, stored through the repository as sign-up stores it. */
export function addUser(database: DataSource, overrides: Partial<NewUser> = {}): Promise<User> {
  return new PostgresUserRepository(database).create(aNewUser(overrides));
}
