import { DomainError, DomainValidationError } from '../shared/domain-error';

export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  readonly id: string;
  readonly email: string;
  readonly role: Role;
  readonly passwordHash: string;
  /**
   * Moves on at every password change. A token carries the version it was issued under, and
   * a token of an older version is refused (assertCurrentCredentials).
   */
  readonly credentialsVersion: number;
  readonly createdAt: Date;
}

export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase, short enough that hashing it is cheap to bound. */
export const PASSWORD_MAX_LENGTH = 256;
export const EMAIL_MAX_LENGTH = 254;

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces. The domain
// is read up to its first dot after its first character, so a run of dots is read once.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@][^\s@.]*\.[^\s@]+$/;

export class InvalidEmailError extends DomainValidationError {
  readonly code = 'AUTH.INVALID_EMAIL';
  constructor() {
    super('email', 'email must be a valid email address');
  }
}

export class InvalidPasswordError extends DomainValidationError {
  readonly code = 'AUTH.INVALID_PASSWORD';
  constructor(field = 'password') {
    super(field, `${field} must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`);
  }
}

export class EmailAlreadyRegisteredError extends DomainError {
  readonly code = 'AUTH.EMAIL_TAKEN';
  readonly kind = 'conflict' as const;
  constructor() {
    super('An account with this email already exists');
  }
}

/** Deliberately silent about which of email or password was wrong. */
export class InvalidCredentialsError extends DomainError {
  readonly code = 'AUTH.INVALID_CREDENTIALS';
  readonly kind = 'unauthenticated' as const;
  constructor() {
    super('Invalid email or password');
  }
}

/** A signed-in person asked to change their password and gave a wrong current one. */
export class WrongCurrentPasswordError extends DomainError {
  readonly code = 'AUTH.INVALID_CREDENTIALS';
  readonly kind = 'unauthenticated' as const;
  constructor() {
    super('The current password is wrong');
  }
}

/** A signed token that no longer stands for an account as it is now: the holder must sign in again. */
export abstract class StaleTokenError extends DomainError {
  readonly code = 'AUTH.UNAUTHENTICATED';
  readonly kind = 'unauthenticated' as const;
}

/** A token issued before the account's password was last changed. */
export class CredentialsChangedError extends StaleTokenError {
  constructor() {
    super('The password was changed: sign in again');
  }
}

/** A token of an account that no longer exists. */
export class AccountGoneError extends StaleTokenError {
  constructor() {
    super('The account for this token no longer exists');
  }
}

/** Self-service sign-up is switched off: accounts are made by the operator's command. */
export class SignUpClosedError extends DomainError {
  readonly code = 'AUTH.SIGN_UP_CLOSED';
  readonly kind = 'forbidden' as const;
  constructor() {
    super('Sign-up is closed: an operator creates accounts');
  }
}

/** For the operator, who names accounts by email; never raised to an anonymous caller. */
export class AccountNotFoundError extends DomainError {
  readonly code = 'AUTH.ACCOUNT_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor(readonly email: string) {
    super(`No account has the email ${email}`);
  }
}

/** Emails are compared case-insensitively and stored in their normal form. */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_SHAPE.test(email)) {
    throw new InvalidEmailError();
  }
  return email;
}

/** @param field names the input in the error: `password`, or `newPassword` when it replaces one. */
export function assertAcceptablePassword(password: string, field = 'password'): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new InvalidPasswordError(field);
  }
}

/**
 * A token is good only for the credentials it was issued under: once the password changes,
 * every token issued before is refused, whatever its expiry.
 * @param tokenVersion the version the token carries (0 for a token issued before versions existed).
 * @throws CredentialsChangedError
 */
export function assertCurrentCredentials(user: Pick<User, 'credentialsVersion'>, tokenVersion: number): void {
  if (!hasCurrentCredentials(user, tokenVersion)) throw new CredentialsChangedError();
}

export function hasCurrentCredentials(user: Pick<User, 'credentialsVersion'>, tokenVersion: number): boolean {
  return tokenVersion === user.credentialsVersion;
}
