import { assertAcceptablePassword, normalizeEmail } from '../../domain/identity/user';
import { type AccountView, toAccountView } from './account-view';
import type { PasswordHasher } from './ports/password-hasher.port';
import type { UserRepository } from './ports/user-repository.port';

/**
 * A new account with the user role, for sign-up and for the operator alike: no address and
 * no path gives the admin role at creation.
 * @throws InvalidEmailError, InvalidPasswordError, EmailAlreadyRegisteredError
 */
export async function createAccount(
  users: UserRepository,
  hasher: PasswordHasher,
  input: { email: string; password: string },
): Promise<AccountView> {
  const email = normalizeEmail(input.email);
  assertAcceptablePassword(input.password);
  const user = await users.create({ email, passwordHash: await hasher.hash(input.password), role: 'user' });
  return toAccountView(user);
}
