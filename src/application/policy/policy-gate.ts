import { Injectable } from '@nestjs/common';
import type { BudgetUsed } from '../../domain/agent/monthly-budget';
import { budgetMonth } from '../../domain/agent/token-budget';
import type { ApiCall } from '../../domain/policy/api-request';
import { enforcement, type PolicyDoor } from '../../domain/policy/enforcement';
import {
  CHAT_TURN,
  type CallTargets,
  type PolicyCall,
  type PolicyDecision,
  type PolicyObligations,
  type PolicySource,
  verdictOf,
} from '../../domain/policy/policy';
import { overLimit } from '../../domain/policy/policy-refusal';
import { PolicyDeniedError, PolicyLimitReachedError } from '../../domain/policy/policy-refusal-error';
import { MonthlyBudgets } from '../agent/ports/monthly-budgets.port';
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
 * Deciding reads memory only, but for the caller's role when the policy tests roles and for
 * their month's spend (month_ledger) when a rule for the tool tests it (`budgetUsed`);
 * counting a call against its limits is a write on the shared counters.
 */
@Injectable()
export class PolicyGate {
  constructor(
    private readonly policies: PolicyProvider,
    private readonly counters: PolicyCounters,
    private readonly accounts: PolicyAccounts,
    private readonly clock: Clock,
    private readonly budgets: MonthlyBudgets,
  ) {}

  /** The policy in force's decision on a call, by what it will act on (resolved by the door it came through). */
  async decide(tool: string, targets: CallTargets, caller: PolicyCaller): Promise<PolicyDecision> {
    return (await this.decided(tool, targets, caller)).decision;
  }

  /**
   * The policy in force's decision on a chat turn (CHAT_TURN), made before its first model
   * call, with the person's month as the decision read it (null when no rule read it, or
   * they have no monthly budget): what a question to them says.
   */
  decideTurn(userId: string): Promise<{ readonly decision: PolicyDecision; readonly budget: BudgetUsed | null }> {
    return this.decided(CHAT_TURN, { items: 1, recipient: null }, { userId, source: 'chat' });
  }

  private async decided(
    tool: string,
    targets: CallTargets,
    caller: PolicyCaller,
  ): Promise<{ readonly decision: PolicyDecision; readonly budget: BudgetUsed | null }> {
    const policy = this.policies.current();
    const at = this.clock.now();
    const role = policy.readsRoles ? ((await this.accounts.roleOf(caller.userId)) ?? undefined) : undefined;
    const budget = policy.readsBudget(tool) ? await this.budgetUsed(caller.userId, at) : null;
    const decision = policy.decide({ tool, source: caller.source, userId: caller.userId, role, targets, at, budget });
    return { decision, budget };
  }

  /** What the month's ledger holds for the person (spent and reserved) against their budget; null without one. */
  private async budgetUsed(userId: string, at: Date): Promise<BudgetUsed | null> {
    const { currency } = this.budgets;
    if (currency === null) return null;
    const use = await this.budgets.use(userId, budgetMonth(at));
    return use && use.budget !== null ? { used: use.spent + use.reserved, budget: use.budget, currency } : null;
  }

  /**
   * A request the person makes themselves (the REST API's task routes), let through or
   * refused: it must pass every tool call it amounts to (apiRequestCalls). A refusal of any of
   * them (a `deny` rule) refuses it; then it counts once against every limit each of them
   * matched, and a full one refuses it, counted nowhere. The request is the person's own yes,
   * so a rule that asks them lets it run (API_DOOR).
   * @throws PolicyDeniedError, PolicyLimitReachedError, naming the call refused
   */
  async admit(calls: readonly ApiCall[], caller: PolicyCaller): Promise<void> {
    const decided: { call: ApiCall; decision: PolicyDecision; obligations: PolicyObligations }[] = [];
    for (const call of calls) {
      const decision = await this.decide(call.tool, call.targets, caller);
      const enforced = enforcement(decision, API_DOOR);
      switch (enforced.kind) {
        case 'refuse':
          throw new PolicyDeniedError(enforced.refusal, verdictOf(decision), call.tool);
        case 'run':
          decided.push({ call, decision, obligations: enforced.obligations });
          break;
        default: {
          const unknown: never = enforced;
          return unknown;
        }
      }
    }
    const limits = decided.flatMap(({ obligations }) => obligations.limits);
    const reached = limits.length === 0 ? null : await this.counters.take(limits);
    if (!reached) return;
    const { call, decision } = decided.find((entry) => entry.obligations.limits.includes(reached.limit)) ?? decided[0];
    throw new PolicyLimitReachedError(
      overLimit(decision.version, reached.limit, reached.retryAfterSeconds),
      verdictOf(decision, reached.limit),
      call.tool,
    );
  }

  /** The policy in force's decision on a call as given, with no role (for describing tools, not for deciding a call). */
  inForce(call: PolicyCall): PolicyDecision {
    return this.policies.current().decide(call);
  }

  /** Counts a call that is about to run against the limits it is obliged to; the limit it would cross, if any (then it counted nowhere). */
  take(obligations: PolicyObligations): Promise<LimitReached | null> {
    return obligations.limits.length === 0 ? Promise.resolve(null) : this.counters.take(obligations.limits);
  }

  /** The limit a call could not run under now, counting nothing (for a preview, before the person is asked). */
  full(obligations: PolicyObligations): Promise<LimitReached | null> {
    return obligations.limits.length === 0 ? Promise.resolve(null) : this.counters.full(obligations.limits);
  }
}

/** The REST task routes: each request is the person's own, their yes; nothing holds for a reviewer. */
const API_DOOR = { person: 'agreed', reviewer: 'nobody' } as const satisfies PolicyDoor;
