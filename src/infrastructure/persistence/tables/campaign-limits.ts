import { z } from 'zod';
import { DEFAULT_DAILY_LIMIT } from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind } from '../../../domain/outreach/outreach-task';
import { type KindLimit, limitRows, QUOTA_WINDOWS, type WeeklyLimits } from '../../../domain/outreach/quota';
import { raw, sql, type Statement } from '../sql';

/*
 * campaign_limits holds a campaign's limits as rows: at most `max` actions of `kind` per
 * `window` (day or week). A kind with no day row has the default daily limit; one with no
 * week row has no weekly limit of its own. The campaign repository writes them; the campaign
 * repository and the outreach cycle store read them, as a column of the statement that reads
 * the campaign (limitsColumn), so no statement is added.
 */

/** The `limits` column of limitsColumn, as read. */
export const LIMITS_FIELD = z.array(z.object({ kind: z.string(), window: z.enum(QUOTA_WINDOWS), max: z.number() }));

/** A campaign's limits as one JSON column (LIMITS_FIELD) of an enclosing query that has its id. */
export function limitsColumn(campaignId: Statement): Statement {
  return sql`(SELECT coalesce(json_agg(json_build_object('kind', l.kind, 'window', l."window", 'max', l.max) ORDER BY l.kind, l."window"), '[]')
    FROM campaign_limits l WHERE l.campaign_id = ${campaignId})`;
}

/** A campaign's daily and weekly limits per kind, from its rows: the built-in kinds always, with their defaults. */
export function limitsOf(rows: readonly KindLimit[]): { dailyLimits: Record<ActionKind, number>; weeklyLimits: WeeklyLimits } {
  const dailyLimits: Record<ActionKind, number> = Object.fromEntries(ACTION_KINDS.map((kind) => [kind, DEFAULT_DAILY_LIMIT]));
  const weeklyLimits: Record<ActionKind, number | null> = Object.fromEntries(ACTION_KINDS.map((kind) => [kind, null]));
  for (const { kind, window, max } of rows) {
    if (window === 'day') dailyLimits[kind] = max;
    else weeklyLimits[kind] = max;
  }
  return { dailyLimits, weeklyLimits };
}

/**
 * Gives the campaign of `campaigns` (a CTE's name, with `id`) exactly these limits in the
 * windows they are given for (a window not given is left as it is): `ctes`, an upsert of each
 * row and a delete of the rows of those windows it does not name (they touch different rows,
 * so one statement holds both); and `column`, the campaign's limits as they are after it
 * (LIMITS_FIELD), since a statement does not see what its own CTEs write.
 */
export function writeLimits(
  campaigns: string,
  limits: { dailyLimits?: Readonly<Record<ActionKind, number>>; weeklyLimits?: Readonly<Record<ActionKind, number | null>> },
): { ctes: Statement; column: Statement } {
  const windows = [...(limits.dailyLimits ? ['day'] : []), ...(limits.weeklyLimits ? ['week'] : [])];
  const rows = limitRows(limits.dailyLimits ?? {}, limits.weeklyLimits ?? {});
  const [kinds, rowWindows, maxes] = [rows.map((row) => row.kind), rows.map((row) => row.window), rows.map((row) => row.max)];
  const wanted = sql`unnest(${kinds}::text[], ${rowWindows}::text[], ${maxes}::int[]) AS r (kind, "window", max)`;
  const c = raw(campaigns);
  return {
    ctes: sql`limits_written AS (
        INSERT INTO campaign_limits AS x (campaign_id, kind, "window", max)
        SELECT c.id, r.kind, r."window", r.max FROM ${c} c CROSS JOIN ${wanted}
        ON CONFLICT (campaign_id, kind, "window") DO UPDATE SET max = EXCLUDED.max
        RETURNING x.kind, x."window", x.max),
      limits_gone AS (
        DELETE FROM campaign_limits g USING ${c} c
        WHERE g.campaign_id = c.id AND g."window" = ANY (${windows}::text[])
          AND (g.kind, g."window") NOT IN (SELECT r.kind, r."window" FROM ${wanted}))`,
    column: sql`(SELECT coalesce(json_agg(json_build_object('kind', w.kind, 'window', w."window", 'max', w.max) ORDER BY w.kind, w."window"), '[]')
      FROM (SELECT kind, "window", max FROM limits_written
            UNION ALL
            SELECT l.kind, l."window", l.max FROM campaign_limits l, ${c} c
            WHERE l.campaign_id = c.id AND l."window" <> ALL (${windows}::text[])) w)`,
  };
}
