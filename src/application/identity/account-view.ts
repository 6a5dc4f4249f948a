import type { Role, User } from '../../domain/identity/user';

/** What an account looks like to its owner: never the password hash. */
export interface AccountView {
  readonly id: string;
  readonly email: string;
  readonly role: Role;
}

export function toAccountView(user: User): AccountView {
  return { id: user.id, email: user.email, role: user.role };
}
