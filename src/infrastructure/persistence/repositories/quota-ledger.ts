import type { DailyLimits } from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind } from '../../../domain/outreach/outreach-task';
import type { QuotaScope, QuotaState } from '../../../domain/outreach/quota';
import type { Sql } from '../sql';

/** Today's use of each kind against the campaign's and the owner's limits, from quota_ledger. */
export async function readQuota(
  sql: Sql,
  campaign: { readonly id: string; readonly ownerId: string; readonly dailyLimits: DailyLimits },
  ownerLimits: Readonly<Record<ActionKind, number>>,
  day: string,
): Promise<QuotaState> {
  const rows = await sql.query<{ scope: QuotaScope; kind: ActionKind; used: number }[]>(
    `SELECT scope, kind, used FROM quota_ledger
     WHERE day = $3 AND ((scope = 'campaign' AND scope_id = $1) OR (scope = 'owner' AND scope_id = $2))`,
    [campaign.id, campaign.ownerId, day],
  );
  const used = (scope: QuotaScope, kind: ActionKind) => rows.find((row) => row.scope === scope && row.kind === kind)?.used ?? 0;
  return Object.fromEntries(
    ACTION_KINDS.map((kind) => [
      kind,
      {
        campaign: { used: used('campaign', kind), limit: campaign.dailyLimits[kind] },
        owner: { used: used('owner', kind), limit: ownerLimits[kind] },
      },
    ]),
  ) as QuotaState;
}

/**
 * Takes one slot of `kind` in `scope` for `day` unless `limit` is reached: one statement,
 * so concurrent reservations serialise on the row and never pass the limit.
 * @returns whether a slot was taken.
 */
export async function reserveSlot(
  sql: Sql,
  slot: { scope: QuotaScope; scopeId: string; kind: ActionKind; day: string; limit: number },
): Promise<boolean> {
  const rows = await sql.query<unknown[]>(
    `INSERT INTO quota_ledger AS q (scope, scope_id, kind, day, used, "limit")
     SELECT $1, $2, $3, $4, 1, $5 WHERE $5 > 0
     ON CONFLICT (scope, scope_id, kind, day) DO UPDATE SET used = q.used + 1, "limit" = $5
       WHERE q.used < $5
     RETURNING used`,
    [slot.scope, slot.scopeId, slot.kind, slot.day, slot.limit],
  );
  return rows.length === 1;
}

/** Gives back the slot `reserveSlot` took on `day` for this action, in both scopes (never below 0). */
export async function refundSlot(sql: Sql, actionId: string, day: string): Promise<void> {
  await sql.query(
    `UPDATE quota_ledger q SET used = q.used - 1
     FROM outreach_actions a
     WHERE a.id = $1 AND q.kind = a.kind AND q.day = $2 AND q.used > 0
       AND ((q.scope = 'campaign' AND q.scope_id = a.campaign_id) OR (q.scope = 'owner' AND q.scope_id = a.owner_id))`,
    [actionId, day],
  );
}
