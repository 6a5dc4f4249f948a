import { canonicalJson } from '../agent/tool-call-validation';
import type { Role } from '../identity/user';
import { emailAddress } from '../shared/email-address';
import { reachesPercent } from '../agent/money';
import { promisedRules } from './default-policy';
import { globMatches, namesTool } from './glob';
import type { PolicyProblem } from './policy-document';
import {
  LIMIT_WINDOWS_MS,
  WEEKDAYS,
  type CallTargets,
  type PolicyCall,
  type PolicyConditions,
  type PolicyDecision,
  type PolicyDocument,
  type PolicyLimit,
  type PolicyRule,
  type PolicyRuling,
  type PolicyTool,
} from './policy';

/** What a rule can test of what a call will do (policy.ts CALL_FACTS). */
export interface CallFacts {
  readonly items: number;
  /** Canonical (canonicalDomain in shared/email-address.ts); '' when `to` is no address; null when the call names no recipient. */
  readonly recipientDomain: string | null;
}

/**
 * The one place a rule's facts come from: the call's targets as the server resolved them
 * (CallTargets), whichever door the call came through, never the words of its arguments.
 */
export function callFacts(targets: CallTargets): CallFacts {
  // The recipient's domain in the one canonical form the rules' globs are in and the mail is sent to.
  const domain = targets.recipient === null ? null : (emailAddress(targets.recipient)?.domain ?? '');
  return { items: targets.items, recipientDomain: domain };
}

/**
 * A limit rule's counter, by its definition: everything that says which calls it counts (its
 * tools as written, sources, people as the account ids they were resolved to, roles,
 * conditions) and how (max, per, window), as canonical JSON, and whose counter it is (`subject`,
 * the person or everyone). Not its name nor its position: a version that keeps the rule as it
 * was, renamed or moved, keeps its count; one that changes any of it counts afresh. Two rules
 * with the same definition are one limit. The store keeps a digest of it (it may be long).
 */
export function limitKey(rule: PolicyRule, people: ReadonlySet<string> | null, subject: string): string {
  const sorted = (values: readonly string[] | undefined) => (values ? [...new Set(values)].sort() : null);
  return canonicalJson({
    tools: sorted(rule.tools),
    sources: sorted(rule.sources),
    people: people ? [...people].sort() : null,
    roles: sorted(rule.roles),
    when: rule.when ?? null,
    limit: rule.limit ?? null,
    subject,
  });
}

interface CompiledRule {
  readonly position: number;
  readonly rule: PolicyRule;
  readonly sources: ReadonlySet<string> | null;
  readonly people: ReadonlySet<string> | null;
  readonly roles: ReadonlySet<Role> | null;
  readonly readsFacts: boolean;
}

/** The tools whose rules test the person's month, and the thresholds they test. */
interface BudgetReading {
  readonly tools: Set<string>;
  readonly thresholds: Set<number>;
}

/**
 * A policy ready to decide calls: each tool's rules listed in the policy's order, so deciding
 * a call reads only the rules that name its tool (globs are expanded against the tools when
 * compiled), with no glob matching at evaluation but the recipient's domain. Built once per
 * version and shared; it holds no state of its own.
 */
export class CompiledPolicy {
  private readonly byTool = new Map<string, CompiledRule[]>();
  /** The rules every policy holds (promisedRules), by tool: they turn an `allow` into their own question. */
  private readonly promised = new Map<string, PolicyRule>();
  /** Whether some rule tests the caller's role: the caller's role must then be given. */
  readonly readsRoles: boolean;
  private readonly budget: BudgetReading = { tools: new Set(), thresholds: new Set() };

  /**
   * @param accounts account ids by email, for the emails the rules name (peopleNamed), as they
   *   were resolved when the version was stored (StoredPolicyVersion.people); an email missing
   *   from it matches nobody.
   */
  constructor(
    readonly version: number,
    readonly document: PolicyDocument,
    catalogue: readonly PolicyTool[],
    accounts: ReadonlyMap<string, string> = new Map(),
  ) {
    document.rules.forEach((rule, index) => {
      const compiled: CompiledRule = {
        position: index + 1,
        rule,
        sources: rule.sources ? new Set(rule.sources) : null,
        people: rule.people ? new Set(rule.people.map((person) => accounts.get(person) ?? person)) : null,
        roles: rule.roles ? new Set(rule.roles) : null,
        readsFacts: Boolean(rule.when?.items || rule.when?.recipientDomain),
      };
      for (const tool of catalogue) {
        if (!rule.tools.some((pattern) => namesTool(pattern, tool))) continue;
        if (rule.when?.budgetUsed) this.budget.tools.add(tool.name);
        const list = this.byTool.get(tool.name) ?? [];
        list.push(compiled);
        this.byTool.set(tool.name, list);
      }
    });
    for (const rule of promisedRules(catalogue)) for (const tool of rule.tools) this.promised.set(tool, rule);
    this.readsRoles = document.rules.some((rule) => rule.roles !== undefined);
    for (const rule of document.rules) if (rule.when?.budgetUsed) this.budget.thresholds.add(rule.when.budgetUsed.atLeastPercent);
  }

  /** Whether a rule for `tool` tests the person's month: the call must then carry it (PolicyCall.budget). */
  readsBudget(tool: string): boolean {
    return this.budget.tools.has(tool);
  }

  /** The percentages of a month's budget the rules test, lowest first: each is notified once a month when a person's spend reaches it. */
  get budgetThresholds(): readonly number[] {
    return [...this.budget.thresholds].sort((a, b) => a - b);
  }

  /**
   * What the policy decides of a call: its rules' evaluation, then the rules every policy holds
   * (promisedRules): a call its rules allow that such a rule puts to the person is put to them,
   * and that rule decides it (its limits counted as before).
   */
  decide(call: PolicyCall): PolicyDecision {
    const decision = this.evaluate(call);
    if (decision.effect !== 'allow') return decision;
    const promise = this.promised.get(call.tool);
    if (!promise || (promise.sources && !promise.sources.includes(call.source))) return decision;
    const { version, limits, items } = decision;
    return { effect: 'ask-person', rule: promise.name, position: null, version, limits, items };
  }

  /** The first of its rules that matches and ends evaluation decides; `limit` rules matched before it are collected. No rule: allowed. */
  evaluate(call: PolicyCall): PolicyDecision {
    const limits: PolicyLimit[] = [];
    const decided = { version: this.version, limits, items: call.targets.items };
    let facts: CallFacts | undefined;
    for (const compiled of this.byTool.get(call.tool) ?? []) {
      if (compiled.sources && !compiled.sources.has(call.source)) continue;
      if (compiled.people && !compiled.people.has(call.userId)) continue;
      if (compiled.roles && !(call.role && compiled.roles.has(call.role))) continue;
      const { rule } = compiled;
      if (rule.when) {
        if (compiled.readsFacts) facts ??= callFacts(call.targets);
        if (!conditionsHold(rule.when, facts, call)) continue;
      }
      if (rule.effect === 'limit') {
        if (rule.limit) this.collect(limits, compiled, rule.limit, call.userId);
        continue;
      }
      return { ...rulingOf(rule, rule.effect, compiled.position), ...decided, ...(rule.when ? { when: rule.when } : {}) };
    }
    return { effect: 'allow', rule: null, position: null, ...decided };
  }

  /** A limit the call counts against; a second rule of the same definition is the same limit: the call counts once on it. */
  private collect(limits: PolicyLimit[], compiled: CompiledRule, limit: NonNullable<PolicyRule['limit']>, userId: string): void {
    const { max, per, window } = limit;
    const key = limitKey(compiled.rule, compiled.people, per === 'person' ? userId : '*');
    if (limits.some((collected) => collected.key === key)) return;
    limits.push({ rule: compiled.rule.name, position: compiled.position, max, window, windowMs: LIMIT_WINDOWS_MS[window], key });
  }
}

/** What a deciding rule rules, by its effect. */
function rulingOf(rule: PolicyRule, effect: Exclude<PolicyRule['effect'], 'limit'>, position: number): PolicyRuling {
  switch (effect) {
    case 'allow':
    case 'ask-person':
      return { effect, rule: rule.name, position };
    case 'ask-reviewer':
      return { effect, rule: rule.name, position, ...(rule.reviewer ? { reviewer: rule.reviewer } : {}) };
    case 'deny':
      return { effect, rule: rule.name, position, reason: rule.reason ?? '' };
    default: {
      const unknown: never = effect;
      return unknown;
    }
  }
}

/** The emails a policy's rules name, to be found as accounts before it is compiled. */
export function peopleNamed(document: PolicyDocument): string[] {
  return [...new Set(document.rules.flatMap((rule) => (rule.people ?? []).filter((person) => person.includes('@'))))];
}

/** A problem for each email a rule names that is no account's (accounts: ids by email). */
export function unknownPeople(document: PolicyDocument, accounts: ReadonlyMap<string, string>): PolicyProblem[] {
  return document.rules.flatMap((rule, index) =>
    (rule.people ?? []).flatMap((person, at) =>
      person.includes('@') && !accounts.has(person)
        ? [
            {
              position: index + 1,
              rule: rule.name,
              field: `rules[${index + 1}].people[${at}]`,
              message: `'${person}' is no account's email`,
            },
          ]
        : [],
    ),
  );
}

function conditionsHold(when: PolicyConditions, facts: CallFacts | undefined, call: PolicyCall): boolean {
  const { at, budget } = call;
  if (when.budgetUsed && !(budget && reachesPercent(budget.used, budget.budget, when.budgetUsed.atLeastPercent))) return false;
  if (when.items && facts) {
    const { over, atMost } = when.items;
    if (over !== undefined && !(facts.items > over)) return false;
    if (atMost !== undefined && !(facts.items <= atMost)) return false;
  }
  if (when.recipientDomain && facts) {
    const domain = facts.recipientDomain;
    const matches = (patterns: readonly string[]) => domain !== null && patterns.some((pattern) => globMatches(pattern, domain));
    // An address whose domain cannot be read is in no list, so a rule for "not these domains" takes it.
    if (when.recipientDomain.in && !matches(when.recipientDomain.in)) return false;
    if (when.recipientDomain.notIn && matches(when.recipientDomain.notIn)) return false;
  }
  if (when.days && !when.days.includes(WEEKDAYS[at.getUTCDay()])) return false;
  if (when.hours) {
    const minute = at.getUTCHours() * 60 + at.getUTCMinutes();
    const from = minutesOf(when.hours.from);
    const to = minutesOf(when.hours.to);
    const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
    if (!inside) return false;
  }
  return true;
}

function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}
