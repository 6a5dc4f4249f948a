import { ROLES, type Role } from '../identity/user';
import { textProblem } from '../shared/untrusted-input';
import { labelProblem } from '../shared/untrusted-text-normalisation';
import { readConditions, type FieldReader } from './condition-reader';
import { isGlob, namesTool, TOOL_GLOB } from './glob';
import {
  LIMIT_SUBJECTS,
  LIMIT_WINDOWS_MS,
  POLICY_EFFECTS,
  POLICY_SOURCES,
  REVIEW_FALLBACKS,
  type CallFact,
  type PolicyConditions,
  type PolicyDocument,
  type PolicyRule,
  type PolicySource,
  type PolicyTool,
} from './policy';

export const POLICY_RULES_MAX = 500;
export const RULE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const REASON_MAX_CHARS = 300;
/** Entries a rule's list (tools, people, domains…) may hold. */
export const LIST_MAX = 100;
const EMAIL_OR_ID = /^[^\s@]{1,64}@[^\s@]{1,253}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One thing wrong with a policy: where (`position`, 1-based, null for the document itself) and why. */
export interface PolicyProblem {
  readonly position: number | null;
  readonly rule?: string;
  /** The field, as `rules[3].when.hours.from`. */
  readonly field: string;
  readonly message: string;
}

export type PolicyReading =
  { readonly ok: true; readonly document: PolicyDocument } | { readonly ok: false; readonly problems: readonly PolicyProblem[] };

/**
 * Reads a policy from outside (a request body, a file) against the tools there are: every
 * field checked, unknown fields refused, and each rule checked against the ones before it.
 * A policy with any problem is refused whole; each problem names its rule's position and why.
 * Refused, for example: an unknown tool, a malformed glob, a rule that can never match (no
 * tool it names is called from the sources it names; an earlier rule already decides every
 * call it matches), an effect the tool cannot have (asking a person about a call nobody can
 * be asked about), fields of another effect, two rules that match the same calls with
 * different effects.
 */
export function readPolicy(input: unknown, catalogue: readonly PolicyTool[]): PolicyReading {
  const problems: PolicyProblem[] = [];
  if (!isObject(input)) return refused(problems, null, undefined, 'policy', 'must be an object with a `rules` list');
  const extra = Object.keys(input).filter((key) => key !== 'rules');
  if (extra.length > 0) problems.push({ position: null, field: extra[0], message: `is not a field of a policy (only \`rules\`)` });
  const { rules } = input;
  if (!Array.isArray(rules)) return refused(problems, null, undefined, 'rules', 'must be a list of rules');
  if (rules.length > POLICY_RULES_MAX)
    return refused(problems, null, undefined, 'rules', `holds ${rules.length} rules; at most ${POLICY_RULES_MAX}`);
  const read: { rule: PolicyRule; position: number }[] = [];
  const names = new Map<string, number>();
  rules.forEach((raw, index) => {
    const position = index + 1;
    const rule = new RuleReader(position, raw, catalogue, problems).read();
    if (!rule) return;
    const earlier = names.get(rule.name);
    if (earlier !== undefined) {
      problems.push({
        position,
        rule: rule.name,
        field: `rules[${position}].name`,
        message: `'${rule.name}' is also rule ${earlier}'s name; names are unique`,
      });
      return;
    }
    names.set(rule.name, position);
    const overlap = decidedBefore(rule, read, catalogue);
    if (overlap) problems.push({ position, rule: rule.name, field: `rules[${position}]`, message: overlap });
    read.push({ rule, position });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, document: { rules: read.map((entry) => entry.rule) } };
}

/** The tools of the catalogue a rule's names and globs stand for. */
export function toolsNamed(patterns: readonly string[], catalogue: readonly PolicyTool[]): PolicyTool[] {
  return catalogue.filter((tool) => patterns.some((pattern) => namesTool(pattern, tool)));
}

/**
 * Over the REST API the caller is the person (their session or their own token): their request
 * is their yes, so an `ask-person` rule lets it run, and one for the API alone would ask nobody.
 */
const API_ASKS_NOBODY =
  "'ask-person' asks nobody over the API: the request is the person's own and runs as their yes; use allow, limit or deny";

/** The sources a rule covers for one of its tools: those it names that the tool is called from. */
export function sourcesFor(rule: Pick<PolicyRule, 'sources'>, tool: PolicyTool): PolicySource[] {
  return tool.sources.filter((source) => !rule.sources || rule.sources.includes(source));
}

function refused(
  problems: PolicyProblem[],
  position: number | null,
  rule: string | undefined,
  field: string,
  message: string,
): PolicyReading {
  problems.push({ position, ...(rule ? { rule } : {}), field, message });
  return { ok: false, problems };
}

/**
 * Whether an earlier rule that ends evaluation matches every call this one matches, so this
 * one can never apply: a problem either way, named as a conflict when their effects differ.
 */
function decidedBefore(
  rule: PolicyRule,
  before: readonly { rule: PolicyRule; position: number }[],
  catalogue: readonly PolicyTool[],
): string | null {
  const mine = toolsNamed(rule.tools, catalogue);
  for (const { rule: earlier, position } of before) {
    if (earlier.effect === 'limit' || earlier.when) continue;
    if (earlier.people && !(rule.people && rule.people.every((person) => earlier.people?.includes(person)))) continue;
    if (earlier.roles && !(rule.roles && rule.roles.every((role) => earlier.roles?.includes(role)))) continue;
    const covers = mine.every(
      (tool) =>
        earlier.tools.some((pattern) => namesTool(pattern, tool)) &&
        sourcesFor(rule, tool).every((source) => sourcesFor(earlier, tool).includes(source)),
    );
    if (!covers) continue;
    return earlier.effect === rule.effect || rule.effect === 'limit'
      ? `can never match: rule ${position} ('${earlier.name}') comes first and already decides every call this one matches`
      : `conflicts with rule ${position} ('${earlier.name}'): both match the same calls, and rule ${position} comes first with '${earlier.effect}' where this one says '${rule.effect}'`;
  }
  return null;
}

/** One rule, read field by field; every problem found is added, and null returned when there was one. */
class RuleReader implements FieldReader {
  private name: string | undefined;
  private readonly before: number;

  constructor(
    private readonly position: number,
    private readonly raw: unknown,
    private readonly catalogue: readonly PolicyTool[],
    private readonly problems: PolicyProblem[],
  ) {
    this.before = problems.length;
  }

  read(): PolicyRule | null {
    const raw = this.raw;
    if (!isObject(raw)) {
      this.problem('', 'must be an object');
      return null;
    }
    this.name = typeof raw.name === 'string' && RULE_NAME.test(raw.name) ? raw.name : undefined;
    if (!this.name) this.problem('name', 'must be 1 to 64 lowercase letters, digits and dashes, starting with a letter or digit');
    const known = ['name', 'tools', 'sources', 'people', 'roles', 'when', 'effect', 'reason', 'limit', 'reviewer'];
    for (const key of Object.keys(raw)) if (!known.includes(key)) this.problem(key, `is not a field of a rule (${known.join(', ')})`);

    const tools = this.list('tools', raw.tools, (value, field) => this.toolPattern(value, field), true);
    const sources = this.list('sources', raw.sources, (value, field) => this.oneOf(value, field, POLICY_SOURCES));
    const people = this.list('people', raw.people, (value, field) =>
      typeof value === 'string' && EMAIL_OR_ID.test(value.trim())
        ? value.trim().toLowerCase()
        : this.problem(field, 'must be an email address or an account id'),
    );
    const roles = this.list('roles', raw.roles, (value, field) => this.oneOf<Role>(value, field, ROLES));
    const when = raw.when === undefined ? undefined : readConditions(raw.when, this);
    const effect = this.oneOf(raw.effect, 'effect', POLICY_EFFECTS);
    const reason = this.reason(raw.reason, effect);
    const limit = this.limit(raw.limit, effect);
    const reviewer = this.reviewer(raw.reviewer, effect);
    if (this.problems.length > this.before || !this.name || !tools || !effect) return null;

    const rule: PolicyRule = {
      name: this.name,
      tools,
      ...(sources ? { sources } : {}),
      ...(people ? { people } : {}),
      ...(roles ? { roles } : {}),
      ...(when ? { when } : {}),
      effect,
      ...(reason !== undefined ? { reason } : {}),
      ...(limit ? { limit } : {}),
      ...(reviewer ? { reviewer } : {}),
    };
    this.reach(rule);
    return this.problems.length > this.before ? null : rule;
  }

  /** What the rule can reach: some tool from some source it names, with the facts its conditions test and the effect it asks for. */
  private reach(rule: PolicyRule): void {
    const tools = toolsNamed(rule.tools, this.catalogue);
    const reachable = tools.filter((tool) => sourcesFor(rule, tool).length > 0);
    if (reachable.length === 0) {
      this.problem(
        'sources',
        `can never match: ${tools.map((tool) => `${tool.name} is called from ${tool.sources.join(' and ')}`).join('; ')}, none of which the rule names`,
      );
      return;
    }
    const tested = testedFacts(rule.when);
    for (const fact of tested) {
      const without = reachable.filter((tool) => !tool.facts.includes(fact)).map((tool) => tool.name);
      if (without.length === reachable.length)
        this.problem(`when.${fact}`, `can never match: no tool the rule names has ${fact} (${without.join(', ')})`);
    }
    if (rule.effect === 'ask-person' && rule.sources?.length === 1 && rule.sources[0] === 'api') {
      this.problem('effect', API_ASKS_NOBODY);
    }
    if (rule.effect === 'ask-person' || rule.effect === 'ask-reviewer') {
      const who = rule.effect === 'ask-person' ? 'person' : 'reviewer';
      const cannot = reachable.filter((tool) => !tool.askable.includes(who)).map((tool) => tool.name);
      if (cannot.length > 0) {
        const can = this.catalogue.filter((tool) => tool.askable.includes(who)).map((tool) => tool.name);
        this.problem(
          'effect',
          `'${rule.effect}' is not possible for ${cannot.join(', ')}: ${who === 'person' ? 'the server can put a call to the person only for' : 'a review queue holds only'} ${can.join(', ') || 'no tool'}`,
        );
      }
    }
  }

  private toolPattern(value: unknown, field: string): string | undefined {
    if (typeof value !== 'string' || !TOOL_GLOB.test(value)) {
      return this.problem(field, 'must be a tool name or a glob of them: lowercase letters, digits, _ and the wildcards * and ?');
    }
    if (!this.catalogue.some((tool) => namesTool(value, tool))) {
      const known = this.catalogue.map((tool) => tool.name).join(', ');
      return this.problem(
        field,
        isGlob(value) ? `'${value}' matches no tool (there are ${known})` : `'${value}' is no tool's name (there are ${known})`,
      );
    }
    return value;
  }

  private reason(raw: unknown, effect: string | undefined): string | undefined {
    if (raw === undefined) {
      if (effect === 'deny') this.problem('reason', 'is required for deny: it is what the person reads');
      return undefined;
    }
    if (typeof raw !== 'string' || raw.trim() === '' || raw.length > REASON_MAX_CHARS) {
      return this.problem('reason', `must be 1 to ${REASON_MAX_CHARS} characters`);
    }
    const problem = textProblem(raw) ?? labelProblem(raw);
    return problem ? this.problem('reason', problem) : raw.trim();
  }

  private limit(raw: unknown, effect: string | undefined): PolicyRule['limit'] {
    if (raw === undefined) {
      if (effect === 'limit') this.problem('limit', 'is required for the limit effect: {max, per, window}');
      return undefined;
    }
    if (effect !== 'limit') return this.problem('limit', `belongs to the limit effect, and this rule's effect is '${String(effect)}'`);
    if (!isObject(raw)) return this.problem('limit', 'must be {max, per, window}');
    for (const key of Object.keys(raw))
      if (!['max', 'per', 'window'].includes(key)) this.problem(`limit.${key}`, 'is not a field of a limit (max, per, window)');
    const max = this.count(raw.max, 'limit.max', 1);
    const per = this.oneOf(raw.per, 'limit.per', LIMIT_SUBJECTS);
    const window = this.oneOf(raw.window, 'limit.window', Object.keys(LIMIT_WINDOWS_MS) as (keyof typeof LIMIT_WINDOWS_MS)[]);
    return max !== undefined && per && window ? { max, per, window } : undefined;
  }

  private reviewer(raw: unknown, effect: string | undefined): PolicyRule['reviewer'] {
    if (raw === undefined) {
      if (effect === 'ask-reviewer') this.problem('reviewer', 'is required for ask-reviewer: {timeoutMinutes, fallback}');
      return undefined;
    }
    if (effect !== 'ask-reviewer')
      return this.problem('reviewer', `belongs to the ask-reviewer effect, and this rule's effect is '${String(effect)}'`);
    if (!isObject(raw)) return this.problem('reviewer', 'must be {timeoutMinutes, fallback}');
    for (const key of Object.keys(raw))
      if (!['timeoutMinutes', 'fallback'].includes(key))
        this.problem(`reviewer.${key}`, 'is not a field of reviewer (timeoutMinutes, fallback)');
    const timeoutMinutes = this.count(raw.timeoutMinutes, 'reviewer.timeoutMinutes', 1, 7 * 24 * 60);
    const fallback = this.oneOf(raw.fallback, 'reviewer.fallback', REVIEW_FALLBACKS);
    return timeoutMinutes !== undefined && fallback ? { timeoutMinutes, fallback } : undefined;
  }

  count(raw: unknown, field: string, min: number, max = 1_000_000): number | undefined {
    return Number.isInteger(raw) && (raw as number) >= min && (raw as number) <= max
      ? (raw as number)
      : this.problem(field, `must be a whole number from ${min} to ${max}`);
  }

  oneOf<T extends string>(raw: unknown, field: string, values: readonly T[]): T | undefined {
    return typeof raw === 'string' && (values as readonly string[]).includes(raw)
      ? (raw as T)
      : this.problem(field, `must be one of ${values.join(', ')}`);
  }

  /** A list of 1 to LIST_MAX entries, each read by `entry`; undefined when absent (a problem when `required`). */
  list<T>(field: string, raw: unknown, entry: (value: unknown, field: string) => T | undefined, required = false): T[] | undefined {
    if (raw === undefined) {
      if (required) this.problem(field, 'is required');
      return undefined;
    }
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > LIST_MAX)
      return this.problem(field, `must be a list of 1 to ${LIST_MAX} entries`);
    const values = raw.map((value, index) => entry(value, `${field}[${index}]`));
    return values.every((value): value is T => value !== undefined) ? values : undefined;
  }

  problem(field: string, message: string): undefined {
    const where = `rules[${this.position}]${field ? `.${field}` : ''}`;
    this.problems.push({ position: this.position, ...(this.name ? { rule: this.name } : {}), field: where, message });
    return undefined;
  }
}

function testedFacts(when: PolicyConditions | undefined): CallFact[] {
  if (!when) return [];
  return [...(when.items ? (['items'] as const) : []), ...(when.recipientDomain ? (['recipientDomain'] as const) : [])];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "rule 3 ('delete-cap'): rules[3].limit.max must be a whole number from 1 to 1000000". */
export function problemInWords(problem: PolicyProblem): string {
  const where = problem.position === null ? 'the policy' : `rule ${problem.position}${problem.rule ? ` ('${problem.rule}')` : ''}`;
  return `${where}: ${problem.field} ${problem.message}`;
}
