import { createHash } from 'node:crypto';
import { applyDecorators, type ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerOptions } from '@nestjs/throttler';
import type { Request } from 'express';

/**
 * The named limits (configured in AppModule) and the routes they apply to. A route says
 * which limits it takes; every other limit skips it. `default` is the per-address limit:
 * named so that its headers keep their standard names (Retry-After, X-RateLimit-*).
 */
export type RateLimitName = 'default' | 'sign-in' | 'mcp';

/** What each limit counts, as the API document's 429 responses say it (their `Retry-After…` headers are the error filter's). */
export const RATE_LIMIT_DESCRIPTIONS: Readonly<Record<RateLimitName, string>> = {
  default: 'HTTP.RATE_LIMITED: more requests to this route from this address this minute than AUTH_RATE_LIMIT_PER_MINUTE',
  'sign-in':
    'HTTP.RATE_LIMITED: more attempts at this account’s password, from any address, than SIGN_IN_ATTEMPTS_PER_ACCOUNT in 15 minutes',
  mcp: 'HTTP.RATE_LIMITED: more calls by this user this minute than MCP_RATE_LIMIT_PER_MINUTE',
};

const LIMITS = 'bridle:rate-limits';
const COUNTS = 'bridle:rate-limit-counts';

/** Counts the request against each named limit; put it after the route's authentication guards. */
export function RateLimit(...limits: RateLimitName[]): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(LIMITS, limits), UseGuards(ThrottlerGuard));
}

/**
 * Which of the route's requests its limits count; without it, every one. `counts` reads the
 * request as the route's guards leave it (authenticated, body parsed), before any limit counts.
 */
export function RateLimitCounts(counts: (req: Request) => boolean): MethodDecorator & ClassDecorator {
  return SetMetadata(COUNTS, counts);
}

/** The limits a route takes: its handler's RateLimit, else its controller's. */
export function rateLimitsOf(handler: object, controller: object): readonly RateLimitName[] {
  return ((Reflect.getMetadata(LIMITS, handler) ?? Reflect.getMetadata(LIMITS, controller)) as RateLimitName[] | undefined) ?? [];
}

/** For a limit's `skipIf`: true on every route that did not ask for `limit`, and for a request the route does not count. */
export function routeSkips(limit: RateLimitName): (context: ExecutionContext) => boolean {
  return (context) => {
    const limits = rateLimitsOf(context.getHandler(), context.getClass());
    if (!limits.includes(limit)) return true;
    const counts = metadataOf(COUNTS, context) as ((req: Request) => boolean) | undefined;
    return counts !== undefined && !counts(context.switchToHttp().getRequest<Request>());
  };
}

function metadataOf(key: string, context: ExecutionContext): unknown {
  return Reflect.getMetadata(key, context.getHandler()) ?? Reflect.getMetadata(key, context.getClass());
}

/**
 * A limit per signed-in user (else per client address) per minute, counted across every
 * route that takes it.
 */
export function perUserPerMinute(name: 'mcp', limit: number): ThrottlerOptions {
  return {
    name,
    ttl: 60_000,
    limit,
    getTracker: (req: { principal?: { userId: string }; ip?: string }) => req.principal?.userId ?? req.ip ?? 'unknown',
    generateKey: (_context, tracker, throttler) => `${throttler}:${tracker}`,
    skipIf: routeSkips(name),
  };
}

/**
 * The per-account sign-in limit: attempts at one account's password, from any address. Every
 * route that takes it (signing in, changing the password) adds to one counter per account, so
 * guesses spread over both get no further than the limit. The key is a hash: no email is
 * stored in `rate_limits`.
 */
export function signInPerAccount(ttl: number, limit: number): ThrottlerOptions {
  return {
    name: 'sign-in',
    ttl,
    limit,
    getTracker: accountNamed,
    generateKey: (_context, tracker, throttler) => createHash('sha256').update(`${throttler}:${tracker}`).digest('hex'),
    skipIf: routeSkips('sign-in'),
  };
}

/**
 * Who the per-account sign-in limit counts: the signed-in account (changing the password,
 * after BearerAuthGuard), else the account named in the body (signing in), however written.
 */
function accountNamed(req: { principal?: { email: string }; body?: { email?: unknown } }): string {
  if (req.principal) return req.principal.email;
  const email = req.body?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : '';
}
