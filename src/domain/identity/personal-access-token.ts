import { labelProblem } from '../shared/untrusted-text-normalisation';
import { DomainError, DomainValidationError } from '../shared/domain-error';
import { parseScopes, type Scope } from './scopes';

/** A credential a person makes for a script or an integration; the secret itself is never kept. */
export interface PersonalAccessToken {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  /** The secret's last four characters, so the person can tell their tokens apart. */
  readonly hint: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly lastUsedAt: Date | null;
  /** The client address of the latest use; a use from another one is audited. */
  readonly lastUsedAddress: string | null;
  readonly revokedAt: Date | null;
}

export const TOKEN_NAME_MAX_LENGTH = 100;
export const TOKEN_DEFAULT_DAYS = 90;
/** A token that never expires outlives the reason it was made; a year is the longest. */
export const TOKEN_MAX_DAYS = 366;
export const TOKENS_PER_USER = 50;

export interface NewTokenRequest {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expiresInDays?: number;
}

export interface ValidTokenRequest {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date;
}

export class InvalidTokenRequestError extends DomainValidationError {
  readonly code = 'TOKENS.INVALID';
}

export class TokenLimitReachedError extends DomainError {
  readonly code = 'TOKENS.LIMIT_REACHED';
  readonly kind = 'conflict' as const;
  constructor() {
    super(`An account may hold at most ${TOKENS_PER_USER} active tokens: revoke one first`);
  }
}

export class TokenNotFoundError extends DomainError {
  readonly code = 'TOKENS.NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('No such token');
  }
}

/** @throws InvalidTokenRequestError naming the field at fault. */
export function validateTokenRequest(request: NewTokenRequest, now: Date): ValidTokenRequest {
  const name = request.name.trim();
  if (name.length === 0 || name.length > TOKEN_NAME_MAX_LENGTH) {
    throw new InvalidTokenRequestError('name', `name must be 1 to ${TOKEN_NAME_MAX_LENGTH} characters`);
  }
  const problem = labelProblem(name);
  if (problem) throw new InvalidTokenRequestError('name', `name ${problem}`);
  const { scopes, unknown } = parseScopes(request.scopes);
  if (unknown.length > 0) throw new InvalidTokenRequestError('scopes', `scopes holds unknown scopes: ${unknown.slice(0, 5).join(', ')}`);
  if (scopes.length === 0) throw new InvalidTokenRequestError('scopes', 'scopes must name at least one scope');
  const days = request.expiresInDays ?? TOKEN_DEFAULT_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > TOKEN_MAX_DAYS) {
    throw new InvalidTokenRequestError('expiresInDays', `expiresInDays must be a whole number from 1 to ${TOKEN_MAX_DAYS}`);
  }
  return { name, scopes, expiresAt: new Date(now.getTime() + days * 24 * 60 * 60 * 1000) };
}

export function isActive(token: PersonalAccessToken, now: Date): boolean {
  return token.revokedAt === null && token.expiresAt.getTime() > now.getTime();
}
