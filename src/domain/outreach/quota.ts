import type { ActionKind } from './outreach-task';

export const QUOTA_SCOPES = ['campaign', 'owner'] as const;
export type QuotaScope = (typeof QUOTA_SCOPES)[number];

/**
 * The windows a quota counts in: the UTC day, and the rolling week, which is that day and
 * the 6 before it (slots are counted per UTC day, so the week moves on at each midnight).
 */
export const QUOTA_WINDOWS = ['day', 'week'] as const;
export type QuotaWindow = (typeof QUOTA_WINDOWS)[number];

/** UTC days a rolling week counts: today and the 6 before it. */
export const WEEK_DAYS = 7;

/** A limit per kind. */
export type KindLimits = Readonly<Record<ActionKind, number>>;
/** A weekly limit per kind; null: no weekly limit of its own (the other limits still apply). */
export type WeeklyLimits = Readonly<Record<ActionKind, number | null>>;

/**
 * One person's limits across all their campaigns (configuration: OUTREACH_OWNER_LIMITS). A
 * kind with no daily limit of its own has OWNER_DAILY_DEFAULT; one with no weekly limit has none.
 */
export interface OwnerLimits {
  readonly daily: KindLimits;
  readonly weekly: Readonly<Record<ActionKind, number | null>>;
}

/** An owner's daily limit of a kind the configuration names no daily limit for. */
export const OWNER_DAILY_DEFAULT = 100;

/** Today's use against one limit. */
export interface QuotaUse {
  readonly used: number;
  readonly limit: number;
}

/** The rolling week's use in one scope. */
export interface WeekUse {
  /** Slots taken on the days the week counts. */
  readonly used: number;
  /** null: no weekly limit in this scope. */
  readonly limit: number | null;
  /** Slots per UTC day (`YYYY-MM-DD`) of the week; a day with none may be absent. */
  readonly byDay: Readonly<Record<string, number>>;
}

/** One scope's use of one kind: today's (`used` of `limit`) and the rolling week's. */
export interface ScopeUse extends QuotaUse {
  readonly week: WeekUse;
}

/** Per kind: the campaign's own limits and the owner's limits across campaigns. */
export type QuotaState = Readonly<Record<ActionKind, Readonly<Record<QuotaScope, ScopeUse>>>>;

/** The limits one reservation checks in one scope, in the same statement. */
export interface SlotLimits {
  readonly day: number;
  /** null: the week is not limited in this scope. */
  readonly week: number | null;
}

/** A limit that stops actions of `kind`, and when its next slot frees. */
export interface QuotaBlock {
  readonly kind: ActionKind;
  readonly scope: QuotaScope;
  readonly window: QuotaWindow;
  readonly limit: number;
  readonly used: number;
  /**
   * When the next slot frees: the next UTC midnight for a day; for a week, the UTC midnight
   * at which enough of its oldest counted days have left the window to bring it under its
   * limit (usually the day after the oldest counted day's seventh).
   */
  readonly until: Date;
}

/** How people read the built-in kinds in a sentence. */
const KIND_LABELS: Readonly<Record<string, string>> = {
  profile_lookup: 'profile look-up',
  linkedin_message: 'LinkedIn message',
  email: 'email',
};

/** How people read a kind in a sentence: a channel's own kind as it is named (`sms`). */
export function kindLabel(kind: ActionKind): string {
  return KIND_LABELS[kind] ?? kind.replaceAll('_', ' ');
}

/** One limit as a row: at most `max` actions of `kind` per `window`. */
export interface KindLimit {
  readonly kind: ActionKind;
  readonly window: QuotaWindow;
  readonly max: number;
}

/** Daily and weekly limits per kind, as rows (a kind's weekly limit of null is no row). */
export function limitRows(daily: KindLimits, weekly: Readonly<Record<ActionKind, number | null>>): KindLimit[] {
  return [
    ...Object.entries(daily).map(([kind, max]) => ({ kind, window: 'day' as const, max })),
    ...Object.entries(weekly).flatMap(([kind, max]) => (max === null ? [] : [{ kind, window: 'week' as const, max }])),
  ];
}

/** What a reservation of `kind` checks in each scope. */
export function slotLimits(state: QuotaState, kind: ActionKind): Readonly<Record<QuotaScope, SlotLimits>> {
  const { campaign, owner } = state[kind];
  return {
    campaign: { day: campaign.limit, week: campaign.week.limit },
    owner: { day: owner.limit, week: owner.week.limit },
  };
}

/** What may still be done today: the smallest room left by any limit, daily or weekly, in either scope. */
export function remainingOf(state: QuotaState, kind: ActionKind): number {
  const rooms = QUOTA_SCOPES.flatMap((scope) => {
    const use = state[kind][scope];
    return use.week.limit === null ? [use.limit - use.used] : [use.limit - use.used, use.week.limit - use.week.used];
  });
  return Math.max(0, Math.min(...rooms));
}

/**
 * The limit that stops `kind` now, or null while every limit has room. When several are
 * reached, the one whose next slot frees last binds (waiting for an earlier one would only
 * meet the next); on a tie, the campaign's before the owner's, the day before the week.
 */
export function quotaBlock(state: QuotaState, kind: ActionKind, now: Date): QuotaBlock | null {
  let binding: QuotaBlock | null = null;
  for (const scope of QUOTA_SCOPES) {
    const block = scopeBlock(state[kind][scope], { kind, scope }, now);
    if (block && (!binding || block.until.getTime() > binding.until.getTime())) binding = block;
  }
  return binding;
}

/** The limit of one scope that stops `kind` now (the later-freeing of its day and week), or null. */
export function scopeBlock(use: ScopeUse, of: { kind: ActionKind; scope: QuotaScope }, now: Date): QuotaBlock | null {
  const blocks: QuotaBlock[] = [];
  if (use.used >= use.limit) {
    blocks.push({ ...of, window: 'day', limit: use.limit, used: use.used, until: nextUtcMidnight(now) });
  }
  const { week } = use;
  if (week.limit !== null && week.used >= week.limit) {
    blocks.push({ ...of, window: 'week', limit: week.limit, used: week.used, until: weekFreesAt(week, now) });
  }
  return blocks.reduce<QuotaBlock | null>((later, block) => (later && later.until >= block.until ? later : block), null);
}

/**
 * When the week next has room: the first UTC midnight after `now` at which the days still
 * in the window hold fewer slots than the limit. With a limit of 0 it never has room: the
 * next UTC midnight, so that a raised limit is seen within a day.
 */
export function weekFreesAt(week: Pick<WeekUse, 'limit' | 'byDay'>, now: Date): Date {
  const today = utcDay(now);
  const limit = week.limit ?? Infinity;
  for (let ahead = 1; ahead <= WEEK_DAYS; ahead++) {
    const from = addDays(today, ahead - (WEEK_DAYS - 1));
    const held = Object.entries(week.byDay).reduce((sum, [day, used]) => (day >= from ? sum + used : sum), 0);
    if (held < limit) return dayStart(addDays(today, ahead));
  }
  return nextUtcMidnight(now);
}

/** The first UTC day the week of `day` counts (6 days before it). */
export function weekStart(day: string): string {
  return addDays(day, -(WEEK_DAYS - 1));
}

/** "the owner's weekly LinkedIn message limit (100 in 7 days) is reached; the next slot frees at …" */
export function describeBlock(block: QuotaBlock): string {
  const whose = block.scope === 'campaign' ? "campaign's" : "owner's";
  const kind = kindLabel(block.kind);
  const limit =
    block.window === 'day' ? `daily ${kind} limit (${block.limit} a day)` : `weekly ${kind} limit (${block.limit} in ${WEEK_DAYS} days)`;
  return `the ${whose} ${limit} is reached; the next slot frees at ${block.until.toISOString()}`;
}

/** Quotas count per UTC day: `YYYY-MM-DD`. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** `day` moved by `days` (negative: earlier). */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(dayStart(day).getTime() + days * 86_400_000));
}

/** 00:00 UTC of `day`. */
export function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Hours from `now` until `until`, rounded up to the hundredth so that it reaches it. */
export function hoursUntil(now: Date, until: Date): number {
  return Math.ceil((until.getTime() - now.getTime()) / 36_000) / 100;
}

/** Hours from `now` until the daily quotas reset, rounded up to the hundredth so that it reaches it. */
export function hoursUntilReset(now: Date): number {
  return hoursUntil(now, nextUtcMidnight(now));
}
