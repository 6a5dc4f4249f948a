import { createHash } from 'node:crypto';
import { applyDecorators, type ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerOptions } from '@nestjs/throttler';
import type { Request } from 'express';

/**
 * The named limits (configured in AppModule) and the routes they apply to. A route says
 * which limits it takes; every other limit skips it. `default` is the per-address limit:
 * named so that its headers keep their standard names (Retry-After, X-RateLimit-*). `api`,
 * `mcp` and `chat-turn` are per person: every route a bearer token opens takes one of them
 * (test/e2e/rate-limits.e2e.spec.ts). `chat-turn` is counted by the turn itself, in the
 * statement that opens it (ChatTurnLimitError), not by the guard: no throttler bears its name,
 * so a turn costs no statement of its own for its count.
 */
export type RateLimitName = 'default' | 'sign-in' | 'mcp' | 'api' | 'chat-turn';

/** What each limit counts, as the API document's 429 responses say it (their `Retry-After…` headers are the error filter's). */
export const RATE_LIMIT_DESCRIPTIONS: Readonly<Record<RateLimitName, string>> = {
  default: 'HTTP.RATE_LIMITED: more requests to this route from this address this minute than AUTH_RATE_LIMIT_PER_MINUTE',
  'sign-in':
    'HTTP.RATE_LIMITED: more attempts at this account’s password, from any address, than SIGN_IN_ATTEMPTS_PER_ACCOUNT in 15 minutes',
  mcp: 'HTTP.RATE_LIMITED: more requests to /mcp by this user this minute than MCP_RATE_LIMIT_PER_MINUTE',
  api: 'HTTP.RATE_LIMITED: more requests by this user this minute than API_RATE_LIMIT_PER_MINUTE',
  'chat-turn': 'HTTP.RATE_LIMITED: more chat turns this minute, on /chat and /chat/stream together, than CHAT_RATE_LIMIT_PER_MINUTE',
};

const LIMITS = 'bridle:rate-limits';

/**
 * Counts every request of the route (refused ones too) against each named limit, before its
 * pipes, interceptors and handler: nothing the handler writes (an audit row of a refusal)
 * happens past the limit. Put it above the route's authentication guards, so that it runs
 * after them and a per-person limit knows the person. On a controller it covers every route;
 * a route's own RateLimit adds to its controller's.
 */
export function RateLimit(...limits: RateLimitName[]): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(LIMITS, limits), UseGuards(RateLimitGuard));
}

/** The limits a route takes: its handler's RateLimit and its controller's. */
export function rateLimitsOf(handler: object, controller: object): readonly RateLimitName[] {
  const own = (Reflect.getMetadata(LIMITS, handler) as RateLimitName[] | undefined) ?? [];
  const shared = (Reflect.getMetadata(LIMITS, controller) as RateLimitName[] | undefined) ?? [];
  return [...new Set([...shared, ...own])];
}

/** For a limit's `skipIf`: true on every route that did not ask for `limit`. */
export function routeSkips(limit: RateLimitName): (context: ExecutionContext) => boolean {
  return (context) => !rateLimitsOf(context.getHandler(), context.getClass()).includes(limit);
}

/** Requests a RateLimitGuard has counted (whichever instance of it: one per module). */
const COUNTED = new WeakSet<object>();

/**
 * The throttler's guard, counting a request once: a route with a RateLimit of its own in a
 * controller with one gets the guard twice, and the first run counts every limit of both.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    if (COUNTED.has(req)) return Promise.resolve(true);
    COUNTED.add(req);
    return Promise.resolve(false);
  }
}

/**
 * A limit per signed-in user (else per client address) per minute, counted across every
 * route that takes it.
 */
export function perUserPerMinute(name: 'mcp' | 'api', limit: number): ThrottlerOptions {
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
