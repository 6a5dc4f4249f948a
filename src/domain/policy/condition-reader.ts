import { canonicalDomainGlob } from '../shared/email-address';
import { WEEKDAYS, type PolicyConditions } from './policy';

const HOUR_MINUTE = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
/** The highest share of a month's budget a rule can test: past 100 % when an admin lowered a budget already spent. */
export const BUDGET_PERCENT_MAX = 1_000;

/** What reading a rule's fields takes of the rule's reader (policy-document.ts): where a problem goes, and its readers of values. */
export interface FieldReader {
  /** Records a problem with the rule's field (`when.items.over`); returns undefined, for `return reader.problem(…)`. */
  problem(field: string, message: string): undefined;
  list<T>(field: string, raw: unknown, entry: (value: unknown, field: string) => T | undefined, required?: boolean): T[] | undefined;
  count(raw: unknown, field: string, min: number, max?: number): number | undefined;
  oneOf<T extends string>(raw: unknown, field: string, values: readonly T[]): T | undefined;
}

const CONDITIONS = ['items', 'recipientDomain', 'days', 'hours', 'budgetUsed'];

/** A rule's `when`, field by field: every problem goes to `reader`; unknown conditions are refused. */
export function readConditions(raw: unknown, reader: FieldReader): PolicyConditions | undefined {
  if (!isObject(raw)) return reader.problem('when', 'must be an object');
  for (const key of Object.keys(raw))
    if (!CONDITIONS.includes(key)) reader.problem(`when.${key}`, `is not a condition (${CONDITIONS.join(', ')})`);
  const items = raw.items === undefined ? undefined : readItems(raw.items, reader);
  const recipientDomain = raw.recipientDomain === undefined ? undefined : readDomains(raw.recipientDomain, reader);
  const days = reader.list('when.days', raw.days, (value, field) => reader.oneOf(value, field, WEEKDAYS));
  const hours = raw.hours === undefined ? undefined : readHours(raw.hours, reader);
  const budgetUsed = raw.budgetUsed === undefined ? undefined : readBudgetUsed(raw.budgetUsed, reader);
  const when: PolicyConditions = {
    ...(items ? { items } : {}),
    ...(recipientDomain ? { recipientDomain } : {}),
    ...(days ? { days } : {}),
    ...(hours ? { hours } : {}),
    ...(budgetUsed ? { budgetUsed } : {}),
  };
  if (Object.keys(when).length === 0 && Object.keys(raw).length === 0) reader.problem('when', 'names no condition; leave it out instead');
  return when;
}

function readItems(raw: unknown, reader: FieldReader): PolicyConditions['items'] {
  if (!isObject(raw)) return reader.problem('when.items', 'must be an object with `over` and/or `atMost`');
  for (const key of Object.keys(raw))
    if (key !== 'over' && key !== 'atMost') reader.problem(`when.items.${key}`, 'is not a bound (over, atMost)');
  const over = raw.over === undefined ? undefined : reader.count(raw.over, 'when.items.over', 0);
  const atMost = raw.atMost === undefined ? undefined : reader.count(raw.atMost, 'when.items.atMost', 1);
  if (over === undefined && atMost === undefined) return reader.problem('when.items', 'needs `over` or `atMost`');
  if (over !== undefined && atMost !== undefined && atMost <= over) {
    return reader.problem('when.items', `can never match: no count is over ${over} and at most ${atMost}`);
  }
  return { ...(over !== undefined ? { over } : {}), ...(atMost !== undefined ? { atMost } : {}) };
}

function readDomains(raw: unknown, reader: FieldReader): PolicyConditions['recipientDomain'] {
  if (!isObject(raw)) return reader.problem('when.recipientDomain', 'must be an object with `in` and/or `notIn`');
  for (const key of Object.keys(raw))
    if (key !== 'in' && key !== 'notIn') reader.problem(`when.recipientDomain.${key}`, 'is not a list (in, notIn)');
  // Read into the canonical form the recipient's domain is read in: `*.bücher.de` is `*.xn--bcher-kva.de`.
  const domain = (value: unknown, field: string) =>
    (typeof value === 'string' ? canonicalDomainGlob(value) : null) ??
    reader.problem(
      field,
      'must be a domain or a glob of domains (*.example.com) that IDNA can read; a label with a wildcard is ASCII letters, digits and -',
    );
  const inList = reader.list('when.recipientDomain.in', raw.in, domain);
  const notIn = reader.list('when.recipientDomain.notIn', raw.notIn, domain);
  if (raw.in === undefined && raw.notIn === undefined) return reader.problem('when.recipientDomain', 'needs `in` or `notIn`');
  if (!inList && !notIn) return undefined;
  if (inList && notIn && inList.every((pattern) => notIn.includes(pattern))) {
    return reader.problem('when.recipientDomain', 'can never match: every domain in `in` is also in `notIn`');
  }
  return { ...(inList ? { in: inList } : {}), ...(notIn ? { notIn } : {}) };
}

function readHours(raw: unknown, reader: FieldReader): PolicyConditions['hours'] {
  if (!isObject(raw) || typeof raw.from !== 'string' || typeof raw.to !== 'string') {
    return reader.problem('when.hours', "must be {from: 'HH:MM', to: 'HH:MM'} (UTC)");
  }
  for (const key of Object.keys(raw))
    if (key !== 'from' && key !== 'to') reader.problem(`when.hours.${key}`, 'is not a field of hours (from, to)');
  if (!HOUR_MINUTE.test(raw.from)) return reader.problem('when.hours.from', "must be a time of day, 'HH:MM' (UTC)");
  if (!HOUR_MINUTE.test(raw.to)) return reader.problem('when.hours.to', "must be a time of day, 'HH:MM' (UTC)");
  if (raw.from === raw.to) return reader.problem('when.hours', `can never match: from ${raw.from} to ${raw.to} is no time at all`);
  return { from: raw.from, to: raw.to };
}

function readBudgetUsed(raw: unknown, reader: FieldReader): PolicyConditions['budgetUsed'] {
  if (!isObject(raw)) return reader.problem('when.budgetUsed', 'must be {atLeastPercent: a whole number}');
  for (const key of Object.keys(raw))
    if (key !== 'atLeastPercent') reader.problem(`when.budgetUsed.${key}`, 'is not a field of budgetUsed (atLeastPercent)');
  if (raw.atLeastPercent === undefined) return reader.problem('when.budgetUsed.atLeastPercent', 'is required');
  const atLeastPercent = reader.count(raw.atLeastPercent, 'when.budgetUsed.atLeastPercent', 1, BUDGET_PERCENT_MAX);
  return atLeastPercent === undefined ? undefined : { atLeastPercent };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
