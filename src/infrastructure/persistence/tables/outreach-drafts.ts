import { changeRows, type Sql, sql } from '../sql';

/**
 * approved → sent, inside the transaction that begins the action (PostgresOutreachCycleStore.begin):
 * @returns false when the draft is no longer approved, and then nothing may run.
 */
export async function markDraftSent(db: Sql, draftId: string, now: Date): Promise<boolean> {
  return (
    (await changeRows(
      db,
      sql`UPDATE outreach_drafts SET status = 'sent', updated_at = ${now} WHERE id = ${draftId} AND status = 'approved'`,
    )) === 1
  );
}
