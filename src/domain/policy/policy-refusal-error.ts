import { DomainError, RateLimitedError } from '../shared/domain-error';
import type { PolicyVerdict } from './policy';
import type { PolicyRefusal } from './policy-refusal';

/**
 * A request of the person's own (the REST API's task routes) that a `deny` rule refused: 403
 * with the admin's reason and the rule. (A tool call the policy refuses is not thrown: the
 * model or the MCP client reads it as the call's result, and its audit row records it.)
 */
export class PolicyDeniedError extends DomainError {
  readonly code = 'POLICY.DENIED' as const;
  readonly kind = 'forbidden' as const;

  constructor(
    readonly refusal: PolicyRefusal,
    /** What the policy said, for the refusal's audit row. */
    readonly verdict: PolicyVerdict,
    /** The tool call of the request that was refused (a request may amount to several). */
    readonly tool: string,
  ) {
    super(refusal.message);
  }
}

/** A request of the person's own over a `limit` rule's count: 429, with when more can run. */
export class PolicyLimitReachedError extends RateLimitedError {
  readonly code = 'POLICY.LIMIT_REACHED' as const;

  constructor(
    readonly refusal: PolicyRefusal,
    /** What the policy said, for the refusal's audit row. */
    readonly verdict: PolicyVerdict,
    /** The tool call of the request that was refused (a request may amount to several). */
    readonly tool: string,
  ) {
    super('policy', refusal.details.retryAfterSeconds ?? 60, refusal.message);
  }
}
