import type { Role, User } from '../../../domain/identity/user';

export interface NewUser {
  readonly email: string;
  readonly passwordHash: string;
  readonly role: Role;
}

export abstract class UserRepository {
  /** @throws EmailAlreadyRegisteredError when the email is taken, also under a race. */
  abstract create(user: NewUser): Promise<User>;
  abstract findByEmail(email: string): Promise<User | null>;
  /** One indexed look-up: it runs on every authenticated request. */
  abstract findById(id: string): Promise<User | null>;
  /** Ordered by email. */
  abstract findByRole(role: Role): Promise<User[]>;
  abstract updateRole(id: string, role: Role): Promise<void>;
  /**
   * Stores a new password hash and moves the credentials version on by one, only while the
   * version is still `expectedVersion` (compare-and-set: of two racing changes, one wins).
   * @returns the account as changed, or null when it is gone or its version moved.
   */
  abstract changePassword(id: string, passwordHash: string, expectedVersion: number): Promise<User | null>;
}
