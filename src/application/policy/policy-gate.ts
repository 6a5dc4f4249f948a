import { Injectable } from '@nestjs/common';
import type { CompiledPolicy } from '../../domain/policy/compiled-policy';
import { type PolicyDecision, type PolicySource, type PolicyVerdict, verdictOf } from '../../domain/policy/policy';
import { denied, overLimit } from '../../domain/policy/policy-refusal';
import { PolicyDeniedError, PolicyLimitReachedError } from '../../domain/policy/policy-refusal-error';
import { Clock } from '../shared/ports/clock.port';
import { PolicyProvider } from './policy-provider';
import { PolicyAccounts } from './ports/policy-accounts.port';
import { type LimitReached, PolicyCounters } from './ports/policy-counters.port';

/** Who makes a call, as the policy asks: the account acting (for outreach, the campaign's owner) and where from. */
export interface PolicyCaller {
  readonly userId: string;
  readonly source: PolicySource;
}

/**
 * Where every tool call meets the policy in force (docs/policies.md), whichever door it came
 * through: the tool-call use case (chat and MCP) and the outreach runner ask it the same way.
 * Deciding reads memory only, but for the caller's role when the policy tests roles;
 * counting a call against its limits is a write on the shared counters.
 */
@Injectable()
export class PolicyGate {
  constructor(
    private readonly policies: PolicyProvider,
    private readonly counters: PolicyCounters,
    private readonly accounts: PolicyAccounts,
    private readonly clock: Clock,
  ) {}

  async decide(tool: string, args: Readonly<Record<string, unknown>>, caller: PolicyCaller): Promise<PolicyDecision> {
    const policy = this.policies.current();
    const role = policy.readsRoles ? ((await this.accounts.roleOf(caller.userId)) ?? undefined) : undefined;
    return policy.evaluate({ tool, source: caller.source, userId: caller.userId, role, arguments: args, at: this.clock.now() });
  }

  /**
   * A request the person makes themselves (the REST API's task routes), let through or
   * refused: a `deny` rule refuses it, a full limit refuses it (and it counts when it runs),
   * and `ask-person` lets it run, the request being the person's own yes.
   * @throws PolicyDeniedError, PolicyLimitReachedError
   */
  async admit(tool: string, args: Readonly<Record<string, unknown>>, caller: PolicyCaller): Promise<PolicyVerdict> {
    const decision = await this.decide(tool, args, caller);
    if (decision.effect === 'deny' && decision.rule !== null) {
      throw new PolicyDeniedError(denied({ ...decision, rule: decision.rule }), verdictOf(decision));
    }
    const reached = await this.take(decision);
    if (reached) {
      throw new PolicyLimitReachedError(
        overLimit(decision.version, reached.limit, reached.retryAfterSeconds),
        verdictOf(decision, reached.limit),
      );
    }
    return verdictOf(decision);
  }

  /** The policy in force's decision on a call as given, with no role (for describing tools, not for deciding a call). */
  inForce(call: Parameters<CompiledPolicy['evaluate']>[0]): PolicyDecision {
    return this.policies.current().evaluate(call);
  }

  /** Counts a call that is about to run against the limits it matched; the limit it would cross, if any (then it counted nowhere). */
  take(decision: PolicyDecision): Promise<LimitReached | null> {
    return decision.limits.length === 0 ? Promise.resolve(null) : this.counters.take(decision.limits);
  }

  /** The limit a call could not run under now, counting nothing (for a dry run, before the person is asked). */
  full(decision: PolicyDecision): Promise<LimitReached | null> {
    return decision.limits.length === 0 ? Promise.resolve(null) : this.counters.full(decision.limits);
  }
}
