import { StaleTokenError } from './user';

/** A sign-in older than the session's cap: renewing it is refused, the person signs in again. */
export class SessionTooOldError extends StaleTokenError {
  constructor(maxAgeSeconds: number) {
    super(`This sign-in is more than ${describeAge(maxAgeSeconds)} old and cannot be renewed: sign in again`);
  }
}

/**
 * The lifetime of a renewed session token: the usual one, cut short so that no token outlives
 * `maxAgeSeconds` after the sign-in it descends from. A stolen token can be renewed only until
 * then, whatever its holder does.
 * @throws SessionTooOldError when that time has come (less than a second is left)
 */
export function renewedLifetimeSeconds(input: {
  readonly signedInAt: Date;
  readonly now: Date;
  readonly lifetimeSeconds: number;
  readonly maxAgeSeconds: number;
}): number {
  const left = Math.floor((input.signedInAt.getTime() + input.maxAgeSeconds * 1000 - input.now.getTime()) / 1000);
  if (left < 1) throw new SessionTooOldError(input.maxAgeSeconds);
  return Math.min(input.lifetimeSeconds, left);
}

function describeAge(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? '1 day' : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  return seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`;
}
