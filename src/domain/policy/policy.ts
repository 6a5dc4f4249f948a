import type { BudgetUsed } from '../agent/monthly-budget';
import type { Role } from '../identity/user';

/**
 * A policy: the rules an admin writes for which tool calls run, which need a person, and how
 * many are allowed, whoever makes them (the chat's agent, an MCP client, the outreach
 * planner). This file holds its vocabulary; policy-document.ts reads one from outside,
 * compiled-policy.ts turns it into what evaluation reads, evaluate.ts decides a call.
 */

/**
 * Where a call comes from: the chat's agent, an MCP client, the outreach planner, or the REST
 * API's task routes (`api`: the person's own request, from the console's task panel or a
 * script with their token), which change tasks as the assistant's tools of the same name do.
 */
export const POLICY_SOURCES = ['chat', 'mcp', 'outreach', 'api'] as const;
export type PolicySource = (typeof POLICY_SOURCES)[number];

/**
 * What a rule does with a call it matches.
 * - `allow`: runs.
 * - `ask-person`: runs once the person said yes to exactly this call (the confirmation the chat and MCP ask today).
 * - `ask-reviewer`: waits in the review queue; after `reviewer.timeoutMinutes` without an answer, `reviewer.fallback`.
 * - `limit`: at most `limit.max` such calls a `limit.window`, per person or for everyone; evaluation goes on to the next rules.
 * - `deny`: refused, with `reason` for the person.
 */
export const POLICY_EFFECTS = ['allow', 'ask-person', 'ask-reviewer', 'limit', 'deny'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];
/** The effects that end evaluation: the first rule with one of these that matches decides. */
export type DecisiveEffect = Exclude<PolicyEffect, 'limit'>;

export const LIMIT_WINDOWS_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
export type LimitWindow = keyof typeof LIMIT_WINDOWS_MS;
export const LIMIT_SUBJECTS = ['person', 'everyone'] as const;
export type LimitSubject = (typeof LIMIT_SUBJECTS)[number];

/**
 * What happens to a draft nobody decided within `reviewer.timeoutMinutes`: `reject` lets it expire
 * and cancels its task (REVIEW_EXPIRED: expired, never a refusal by a person); `escalate` hands it
 * to the admins for as long again, after which it expires the same way.
 */
export const REVIEW_FALLBACKS = ['reject', 'escalate'] as const;
export type ReviewFallback = (typeof REVIEW_FALLBACKS)[number];

/** Days as a rule names them; index 0 is Sunday, as Date.getUTCDay counts. */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * What a rule can test of what a call will do, read by callFacts from the call's targets as
 * the server resolved them (CallTargets), never from the words of its arguments.
 * - `items`: how many things it touches (a deletion of tasks 2, 5 and 7 touches 3; a deletion
 *   of every completed task, as many as are completed).
 * - `recipientDomain`: the domain of the address it writes to (send_email's `to`).
 */
export const CALL_FACTS = ['items', 'recipientDomain'] as const;
export type CallFact = (typeof CALL_FACTS)[number];

/**
 * The chat turn as a subject of the policy: decided before the turn's first model call (its
 * source is `chat`), so that a rule can ask the person before a turn (`ask-person`: once per
 * turn, with the month's spend in the question), refuse it (`deny`: no model call at all), or
 * count turns (`limit`). Not a tool: no glob names it, so rules written for tools keep
 * their meaning; a rule names it as `chat_turn`.
 */
export const CHAT_TURN = 'chat_turn';

/** A tool as the policy knows it: where it can be called from and what can be asked about it. */
export interface PolicyTool {
  readonly name: string;
  readonly sources: readonly PolicySource[];
  /** Destroys data: the chat always puts a call of it to the person (promisedRules), and the built-in policy does over MCP too. */
  readonly destructive: boolean;
  /** Who can be asked before it runs: `person` where the server can put the call to them as a question, `reviewer` where a review queue holds it. */
  readonly askable: readonly ('person' | 'reviewer')[];
  readonly facts: readonly CallFact[];
  /** Matched only by its own name, never by a glob (CHAT_TURN). */
  readonly byNameOnly?: boolean;
}

/** A rule as written: in a policy file, over the admin API, in the console. */
export interface PolicyRule {
  /** Unique in the policy; what audit rows and refusals name. */
  readonly name: string;
  /** Tool names or globs (`*`, `?`): at least one. */
  readonly tools: readonly string[];
  /** Where the call comes from; every source when absent. */
  readonly sources?: readonly PolicySource[];
  /** Whose calls: emails or account ids; everyone's when absent. */
  readonly people?: readonly string[];
  /** Whose calls, by role; every role when absent. */
  readonly roles?: readonly Role[];
  readonly when?: PolicyConditions;
  readonly effect: PolicyEffect;
  /** What the person reads when the rule refuses a call (required for `deny`). */
  readonly reason?: string;
  readonly limit?: { readonly max: number; readonly per: LimitSubject; readonly window: LimitWindow };
  readonly reviewer?: { readonly timeoutMinutes: number; readonly fallback: ReviewFallback };
}

/** What must also hold of a call (all of it). Times are UTC. */
export interface PolicyConditions {
  readonly items?: { readonly over?: number; readonly atMost?: number };
  /** Domain names or globs (`*.example.com`): the recipient's domain is among `in` and not among `notIn`. */
  readonly recipientDomain?: { readonly in?: readonly string[]; readonly notIn?: readonly string[] };
  readonly days?: readonly Weekday[];
  /** `HH:MM`, UTC; `from` after `to` spans midnight. */
  readonly hours?: { readonly from: string; readonly to: string };
  /**
   * The acting person's month (for outreach, the campaign's owner): what the ledger holds of
   * it, spent and reserved, is at least `atLeastPercent` % of their monthly budget. A person
   * with no monthly budget (or where calls are not priced) never matches.
   */
  readonly budgetUsed?: { readonly atLeastPercent: number };
}

export interface PolicyDocument {
  readonly rules: readonly PolicyRule[];
}

/**
 * What a call will act on, resolved by the server against the data as it is when the call is
 * decided, by the same resolution that runs it (and that the person's confirmation shows):
 * the tasks a `scope` or a title names, the address a message goes to. Each door builds it:
 * the toolbox for the chat and MCP (Toolbox.resolve), the REST routes for a request
 * (each tool's REST twin, apiRequestCalls), outreach for an action (actionTargets), and the dry run of a policy from
 * what the audit row recorded (recordedTargets).
 */
export interface CallTargets {
  /** How many things it touches: tasks changed or deleted, a task added, a message sent. */
  readonly items: number;
  /** The address it writes to, as it will be written to; null when it writes to none. */
  readonly recipient: string | null;
}

/** A call as the policy sees it: built by the server, never by the caller. */
export interface PolicyCall {
  readonly tool: string;
  readonly source: PolicySource;
  readonly userId: string;
  /** Required when the policy tests roles (CompiledPolicy.readsRoles). */
  readonly role?: Role;
  readonly targets: CallTargets;
  readonly at: Date;
  /** The person's month, read when the policy tests it (CompiledPolicy.readsBudget); null when they have no monthly budget. */
  readonly budget?: BudgetUsed | null;
}

/**
 * A limit a call counts against. Its counter's `key` is the rule's definition (what it matches
 * and its limit: limitKey), not its name or position: every version that keeps the rule as it
 * is keeps counting on the same counter, renamed or moved, and an edited rule starts afresh.
 */
export interface PolicyLimit {
  readonly rule: string;
  readonly position: number;
  readonly max: number;
  readonly window: LimitWindow;
  readonly windowMs: number;
  readonly key: string;
}

/** A rule's reviewer: how long the owner has to answer, and what happens when nobody does. */
export type ReviewerRule = NonNullable<PolicyRule['reviewer']>;

/**
 * What decided a call, by effect: the deciding rule (1-based `position` as the policy lists
 * it), and what that effect needs. `allow` names no rule when none matched. An `ask-person`
 * may come from a rule every policy holds (promisedRules in default-policy.ts): then it has no
 * position.
 */
export type PolicyRuling =
  | { readonly effect: 'allow'; readonly rule: string | null; readonly position: number | null }
  | { readonly effect: 'ask-person'; readonly rule: string; readonly position: number | null }
  /** `reviewer`: its time to answer and fallback (readPolicy requires them). */
  | { readonly effect: 'ask-reviewer'; readonly rule: string; readonly position: number; readonly reviewer?: ReviewerRule }
  /** `reason`: what the person reads (readPolicy requires it). */
  | { readonly effect: 'deny'; readonly rule: string; readonly position: number; readonly reason: string };

/**
 * What a decision obliges a door to do besides its effect, each time the call runs (and what a
 * preview of it looks at first). Today one: count the call against every `limit` rule it matched
 * before the deciding one, in order (one per counter). A new obligation is one more member here,
 * collected by CompiledPolicy.evaluate, carried by enforcement() and fulfilled by PolicyGate.
 */
export interface PolicyObligations {
  readonly limits: readonly PolicyLimit[];
}

/** What the policy says of a call: the ruling by effect, its obligations, and what it was decided on. */
export type PolicyDecision = PolicyRuling &
  PolicyObligations & {
    readonly version: number;
    /** The deciding rule's conditions, when it has any (a refused chat turn says whether it was the budget). */
    readonly when?: PolicyConditions;
    /** How many things the call touches, as decided (CallTargets.items). */
    readonly items: number;
  };

/**
 * What an audit row records of the decision that let a call through or stopped it, and how
 * many things the call touched as the policy read it (`items`: what a dry run of another
 * policy reads back; absent on rows written before it was recorded).
 */
export interface PolicyVerdict {
  readonly version: number;
  readonly rule: string | null;
  readonly effect: PolicyEffect;
  readonly items?: number;
}

export function verdictOf(decision: PolicyDecision, limit?: PolicyLimit): PolicyVerdict {
  return limit
    ? { version: decision.version, rule: limit.rule, effect: 'limit', items: decision.items }
    : { version: decision.version, rule: decision.rule, effect: decision.effect, items: decision.items };
}

/** Tool error codes of calls the policy stopped. */
export const POLICY_DENIED = 'POLICY_DENIED';
export const POLICY_LIMIT_REACHED = 'POLICY_LIMIT_REACHED';
