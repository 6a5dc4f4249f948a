import { type DailyLimits, DEFAULT_DAILY_LIMIT } from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind } from '../../../domain/outreach/outreach-task';
import {
  OWNER_DAILY_DEFAULT,
  type OwnerLimits,
  QUOTA_SCOPES,
  type QuotaBlock,
  type QuotaScope,
  type QuotaState,
  scopeBlock,
  type ScopeUse,
  type SlotLimits,
  WEEK_DAYS,
  type WeeklyLimits,
} from '../../../domain/outreach/quota';
import { z } from 'zod';
import { changeRows, join, run, type Sql, selectRows, sql, type Statement } from '../sql';

/*
 * quota_ledger holds the slots taken per scope (a campaign, or its owner across campaigns),
 * kind and UTC day. A day's use is its row; a rolling week's is the sum of the rows of that
 * day and the 6 before it (and of any later day: see reserveSlots). Rows are never deleted,
 * so slots taken before weekly limits existed count in the week like any other.
 *
 * This module is the one writer of quota_ledger and quota_counters: a slot is taken by
 * reserveSlots and given back by refundSlot (an action's) or refundHeldSlot (a draft's).
 */

/** A ledger row as read: `day` as text (YYYY-MM-DD). */
export const QUOTA_ROW = z.object({ scope: z.enum(QUOTA_SCOPES), kind: z.string(), day: z.string(), used: z.number() });

const TAKEN_ROW = z.object({ scope: z.string(), scope_id: z.string() });

/** A campaign as the ledger needs it: who owns it and its own limits. */
export interface QuotaCampaign {
  readonly id: string;
  readonly ownerId: string;
  readonly dailyLimits: DailyLimits;
  readonly weeklyLimits: WeeklyLimits;
}

/**
 * The ledger rows a quota state is made of: the campaign's and its owner's, of today and the
 * rolling week (QUOTA_ROW), by the primary key. One statement, so the day and the week agree;
 * the campaign and owner may be columns of an enclosing query.
 */
export function quotaRows(campaignId: Statement, ownerId: Statement, day: string): Statement {
  return sql`SELECT scope, kind, day::text AS day, used FROM quota_ledger
    WHERE day > ${day}::date - ${WEEK_DAYS}::int
      AND ((scope = 'campaign' AND scope_id = ${campaignId}) OR (scope = 'owner' AND scope_id = ${ownerId}))`;
}

/** Today's and the rolling week's use of each kind against the campaign's and the owner's limits, from quota_ledger. */
export async function readQuota(db: Sql, campaign: QuotaCampaign, ownerLimits: OwnerLimits, day: string): Promise<QuotaState> {
  const rows = await selectRows(db, quotaRows(sql`${campaign.id}::uuid`, sql`${campaign.ownerId}::uuid`, day), QUOTA_ROW);
  return quotaStateOf(rows, campaign, ownerLimits, day);
}

/** The quota state that the ledger rows of `quotaRows` make. */
export function quotaStateOf(
  rows: readonly z.output<typeof QUOTA_ROW>[],
  campaign: QuotaCampaign,
  ownerLimits: OwnerLimits,
  day: string,
): QuotaState {
  const limits: Readonly<Record<QuotaScope, SlotLimitsByKind>> = {
    campaign: { daily: campaign.dailyLimits, weekly: campaign.weeklyLimits, dailyDefault: DEFAULT_DAILY_LIMIT },
    owner: { ...ownerLimits, dailyDefault: OWNER_DAILY_DEFAULT },
  };
  // Every kind anything names: the built-in ones, those with a limit, those with slots taken.
  const kinds = new Set<ActionKind>([
    ...ACTION_KINDS,
    ...[campaign.dailyLimits, campaign.weeklyLimits, ownerLimits.daily, ownerLimits.weekly].flatMap((each) => Object.keys(each)),
    ...rows.map((row) => row.kind),
  ]);
  return Object.fromEntries(
    [...kinds].map((kind) => [
      kind,
      Object.fromEntries(
        QUOTA_SCOPES.map((scope) => [
          scope,
          scopeUse(
            rows.filter((row) => row.scope === scope && row.kind === kind),
            day,
            { day: limits[scope].daily[kind] ?? limits[scope].dailyDefault, week: limits[scope].weekly[kind] ?? null },
          ),
        ]),
      ),
    ]),
  ) as unknown as QuotaState;
}

/** One scope's limits per kind, and the daily limit of a kind it names none for. */
interface SlotLimitsByKind {
  readonly daily: Readonly<Partial<Record<ActionKind, number>>>;
  readonly weekly: Readonly<Partial<Record<ActionKind, number | null>>>;
  readonly dailyDefault: number;
}

function scopeUse(rows: readonly { day: string; used: number }[], day: string, limits: SlotLimits): ScopeUse {
  const byDay = Object.fromEntries(rows.filter((row) => row.used > 0).map((row) => [row.day, row.used]));
  return {
    used: rows.find((row) => row.day === day)?.used ?? 0,
    limit: limits.day,
    week: { used: rows.reduce((sum, row) => sum + row.used, 0), limit: limits.week, byDay },
  };
}

/** One slot of `kind` in one scope, on `day`, checked against that scope's limits. */
export interface Slot {
  readonly scope: QuotaScope;
  readonly scopeId: string;
  readonly kind: ActionKind;
  readonly day: string;
  readonly limits: SlotLimits;
}

/** The slots one action takes: one of its kind on `day` in its campaign, then in its owner's scope, each against its limits. */
export function slotsOf(
  claim: { readonly campaignId: string; readonly ownerId: string },
  action: { readonly kind: ActionKind; readonly day: string; readonly limits: Readonly<Record<QuotaScope, SlotLimits>> },
): Slot[] {
  const scopeIds: Readonly<Record<QuotaScope, string>> = { campaign: claim.campaignId, owner: claim.ownerId };
  return QUOTA_SCOPES.map((scope) => ({
    scope,
    scopeId: scopeIds[scope],
    kind: action.kind,
    day: action.day,
    limits: action.limits[scope],
  }));
}

/**
 * Takes one slot in each of `slots` (one per scope: the campaign's, then its owner's) unless
 * a day's or a rolling week's limit is reached. Call it inside a transaction, and roll the
 * transaction back when it refuses a slot: the others were taken by the same statement. The
 * locks it takes are held until that transaction ends, so call it last: every other
 * reservation of the same counters waits until then.
 *
 * 1. The counters' rows in quota_counters (scope, scope id, kind) are locked, in the order
 *    given, by one statement: every reservation of a counter, whatever its day, waits here
 *    for the one before it to commit or roll back.
 * 2. Then one conditional upsert of each slot's day row, in one statement. It starts after
 *    the locks were granted, so the week's sum it reads includes every slot another
 *    reservation took; and the day's limit is checked on the newest version of the row. The
 *    week counts every row from 6 days before `day` on, later days included: a worker whose
 *    cycle began before midnight must still see what was taken after it.
 *
 * A refund (a decrement, which takes no lock) can only make the sum read here too high,
 * never too low: it never lets a reservation pass a limit.
 * @returns the first slot refused, or null when every one was taken.
 */
export async function reserveSlots(db: Sql, slots: readonly Slot[]): Promise<Slot | null> {
  await run(
    db,
    sql`INSERT INTO quota_counters AS c (scope, scope_id, kind)
        VALUES ${join(
          slots.map((slot) => sql`(${slot.scope}, ${slot.scopeId}::uuid, ${slot.kind})`),
          ', ',
        )}
        ON CONFLICT (scope, scope_id, kind) DO UPDATE SET scope = c.scope`,
  );
  const wanted = join(
    slots.map(
      (slot, n) =>
        sql`(${n}::int, ${slot.scope}::varchar, ${slot.scopeId}::uuid, ${slot.kind}::varchar, ${slot.day}::date,
             ${slot.limits.day}::int, ${slot.limits.week}::int)`,
    ),
    ', ',
  );
  const taken = await selectRows(
    db,
    sql`INSERT INTO quota_ledger AS q (scope, scope_id, kind, day, used, "limit")
        SELECT v.scope, v.scope_id, v.kind, v.day, 1, v.day_limit
        FROM (VALUES ${wanted}) AS v (n, scope, scope_id, kind, day, day_limit, week_limit)
        WHERE v.day_limit > 0 AND (v.week_limit IS NULL OR (
          SELECT coalesce(sum(w.used), 0) FROM quota_ledger w
          WHERE w.scope = v.scope AND w.scope_id = v.scope_id AND w.kind = v.kind AND w.day > v.day - ${WEEK_DAYS}::int) < v.week_limit)
        ORDER BY v.n
        ON CONFLICT (scope, scope_id, kind, day) DO UPDATE SET used = q.used + 1, "limit" = EXCLUDED."limit"
          WHERE q.used < EXCLUDED."limit"
        RETURNING scope, scope_id`,
    TAKEN_ROW,
  );
  return slots.find((slot) => !taken.some((row) => row.scope === slot.scope && row.scope_id === slot.scopeId)) ?? null;
}

/**
 * Why `reserveSlots` refused `slot`: the limit that binds in its scope and when its next slot
 * frees. Call it in the same transaction, after the refusal (the counter is still locked).
 * If a refund committed in between and the scope has room again, its next slot frees now:
 * the tighter of its two windows, until `now`.
 */
export async function refusalOf(db: Sql, slot: Slot, now: Date): Promise<QuotaBlock> {
  const rows = await selectRows(
    db,
    sql`SELECT scope, kind, day::text AS day, used FROM quota_ledger
        WHERE scope = ${slot.scope} AND scope_id = ${slot.scopeId} AND kind = ${slot.kind} AND day > ${slot.day}::date - ${WEEK_DAYS}::int`,
    QUOTA_ROW,
  );
  const use = scopeUse(rows, slot.day, slot.limits);
  const of = { kind: slot.kind, scope: slot.scope };
  const block = scopeBlock(use, of, now);
  if (block) return block;
  const { week } = use;
  return week.limit !== null && week.limit - week.used < use.limit - use.used
    ? { ...of, window: 'week', limit: week.limit, used: week.used, until: now }
    : { ...of, window: 'day', limit: use.limit, used: use.used, until: now };
}

/**
 * Gives back the slot `reserveSlots` took on `day` for this action, in both scopes (never
 * below 0); the week, a sum of days, gets it back with the day. The campaign's row first,
 * then the owner's: the order reservations lock them in, so the two never deadlock.
 */
export async function refundSlot(db: Sql, actionId: string, day: string): Promise<void> {
  for (const scope of QUOTA_SCOPES) {
    await changeRows(
      db,
      sql`UPDATE quota_ledger q SET used = q.used - 1
          FROM outreach_actions a
          WHERE a.id = ${actionId} AND q.kind = a.kind AND q.day = ${day} AND q.used > 0 AND q.scope = ${scope}
            AND q.scope_id = ${scope === 'campaign' ? sql`a.campaign_id` : sql`a.owner_id`}`,
    );
  }
}

/**
 * Gives back the slot a draft held since it was drafted, in both scopes, on the day it was
 * reserved (never below 0). One scope at a time, in the order reservations lock them
 * (campaign, then owner), as refundSlot does: a refund racing a reservation can then never
 * deadlock with it.
 */
export async function refundHeldSlot(
  db: Sql,
  held: { readonly campaign_id: string; readonly owner_id: string; readonly kind: ActionKind; readonly quota_day: string },
): Promise<void> {
  for (const scope of QUOTA_SCOPES) {
    await changeRows(
      db,
      sql`UPDATE quota_ledger q SET used = q.used - 1
          WHERE q.kind = ${held.kind} AND q.day = ${held.quota_day}::date AND q.used > 0
            AND q.scope = ${scope} AND q.scope_id = ${scope === 'campaign' ? held.campaign_id : held.owner_id}::uuid`,
    );
  }
}
