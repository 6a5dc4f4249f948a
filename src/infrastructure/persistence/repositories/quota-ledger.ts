import type { DailyLimits } from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind } from '../../../domain/outreach/outreach-task';
import { QUOTA_SCOPES, type QuotaScope, type QuotaState } from '../../../domain/outreach/quota';
import { z } from 'zod';
import { changeRows, type Sql, selectRows, sql } from '../sql';

const QUOTA_ROW = z.object({ scope: z.enum(QUOTA_SCOPES), kind: z.enum(ACTION_KINDS), used: z.number() });

const USED_ROW = z.object({ used: z.number() });

/** Today's use of each kind against the campaign's and the owner's limits, from quota_ledger. */
export async function readQuota(
  db: Sql,
  campaign: { readonly id: string; readonly ownerId: string; readonly dailyLimits: DailyLimits },
  ownerLimits: Readonly<Record<ActionKind, number>>,
  day: string,
): Promise<QuotaState> {
  const rows = await selectRows(
    db,
    sql`SELECT scope, kind, used FROM quota_ledger
        WHERE day = ${day} AND ((scope = 'campaign' AND scope_id = ${campaign.id}) OR (scope = 'owner' AND scope_id = ${campaign.ownerId}))`,
    QUOTA_ROW,
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
  db: Sql,
  slot: { scope: QuotaScope; scopeId: string; kind: ActionKind; day: string; limit: number },
): Promise<boolean> {
  const { limit } = slot;
  const rows = await selectRows(
    db,
    sql`INSERT INTO quota_ledger AS q (scope, scope_id, kind, day, used, "limit")
        SELECT ${slot.scope}, ${slot.scopeId}, ${slot.kind}, ${slot.day}, 1, ${limit}::int WHERE ${limit}::int > 0
        ON CONFLICT (scope, scope_id, kind, day) DO UPDATE SET used = q.used + 1, "limit" = ${limit}::int
          WHERE q.used < ${limit}::int
        RETURNING used`,
    USED_ROW,
  );
  return rows.length === 1;
}

/** Gives back the slot `reserveSlot` took on `day` for this action, in both scopes (never below 0). */
export async function refundSlot(db: Sql, actionId: string, day: string): Promise<void> {
  await changeRows(
    db,
    sql`UPDATE quota_ledger q SET used = q.used - 1
        FROM outreach_actions a
        WHERE a.id = ${actionId} AND q.kind = a.kind AND q.day = ${day} AND q.used > 0
          AND ((q.scope = 'campaign' AND q.scope_id = a.campaign_id) OR (q.scope = 'owner' AND q.scope_id = a.owner_id))`,
  );
}
