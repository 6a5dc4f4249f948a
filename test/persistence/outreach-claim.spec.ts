import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import { PostgresCampaignRepository } from '../../src/infrastructure/persistence/repositories/postgres-campaign.repository';
import { PostgresOutreachCycleStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import { claimStatement } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store/cycle-context';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';
import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { addUser } from '../factories/users';

interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans returned or filtered out, times their loops: what the statement read. */
function rowsRead(node: PlanNode): number {
  const own = /Scan/.test(node['Node Type'])
    ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1)
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/**
 * The claim (PostgresOutreachCycleStore.claimTask) reads a bounded number of rows, whatever
 * the campaign's size, the planner's statistics (none right after an import, or fresh ones),
 * how many tasks wait for an earlier step of their lead, and how many due tasks paused
 * campaigns hold. Counted in rows and buffers from EXPLAIN (ANALYZE, BUFFERS), never in time.
 * Before migration 1766275200000, the first claim on this campaign read 47 000 to 50 000 rows
 * with no statistics and 20 000 after ANALYZE (docs/outreach.md, "What a cycle costs the database").
 */
describe(`the outreach claim on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  /** 3 334 leads with an email: 10 002 tasks. */
  const LEADS = 3334;
  /** The claim reads about 6 rows: the active campaigns, the head it locks, its checks, the row it updates. */
  const MAX_ROWS = 20;
  const MAX_BUFFERS = 80;
  const now = new Date('2026-11-18T14:20:00.000Z');
  const db = useOpenDatabase();
  let campaigns: PostgresCampaignRepository;
  let store: PostgresOutreachCycleStore;
  let ownerId: string;
  let big: string;
  let small: string;
  let workers = 0;

  const sql = <T>(query: string, parameters: unknown[] = []) => db.database.query<T>(query, parameters);

  function startedCampaign(name: string, leads: number): Promise<string> {
    const tag = uniqueSlug();
    return addActiveCampaign(db.database, ownerId, {
      now,
      campaign: { name },
      leads: Array.from({ length: leads }, (_, i) => aLead(`${tag}-${i}`, { name: `Lead ${i}`, email: `${tag}.${i}@example.com` })),
      leadsAt: new Date(now.getTime() - 3_600_000),
    });
  }

  /** Runs the claim under EXPLAIN (ANALYZE, BUFFERS): it claims as it would, and says what it read. */
  async function explainedClaim(campaignId?: string): Promise<{ rows: number; buffers: number; claimed: string | null }> {
    const workerId = `worker-${++workers}`;
    const statement = claimStatement({ workerId, now, leaseMs: 60_000, campaignId });
    const [{ 'QUERY PLAN': plan }] = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const claimed = await sql<{ id: string }[]>(`SELECT id FROM outreach_tasks WHERE lease_owner = $1`, [workerId]);
    const top = plan[0].Plan;
    return {
      rows: rowsRead(top),
      buffers: (top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0),
      claimed: claimed[0]?.id ?? null,
    };
  }

  /** The task the claim must take next among these campaigns' tasks: the most overdue that is ready and free. */
  async function next(...campaignIds: string[]): Promise<string> {
    const [row] = await sql<{ id: string }[]>(
      `SELECT id FROM outreach_tasks d WHERE campaign_id = ANY($1::uuid[]) AND status = 'Pending' AND next_run_at <= $2
         AND NOT EXISTS (SELECT 1 FROM outreach_tasks p WHERE p.lead_id = d.lead_id AND p.step < d.step AND p.status IN ('Pending', 'InProgress', 'AwaitingReview'))
       ORDER BY next_run_at, step, created_at, id LIMIT 1`,
      [campaignIds, now],
    );
    return row.id;
  }

  beforeAll(async () => {
    campaigns = new PostgresCampaignRepository(db.database);
    store = new PostgresOutreachCycleStore(db.database, new AuditAppender(new RecordingMetrics()), ErasedAddressKey.derive('test secret'));
    ownerId = (await addUser(db.database)).id;
    big = await startedCampaign('Ten thousand', LEADS);
    small = await startedCampaign('Ten', 10);
  }, 120_000);

  it('reads a few rows of a campaign of 10 002 tasks right after its import, with no statistics, as of a campaign of 30', async () => {
    expect(await sql(`SELECT count(*)::int AS n FROM outreach_tasks WHERE campaign_id = $1`, [big])).toEqual([{ n: 3 * LEADS }]);
    expect(await sql(`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'outreach_tasks'`)).toEqual([{ n: 0 }]);

    const expected = await next(big);
    const claim = await explainedClaim(big);
    expect(claim.claimed).toBe(expected);
    expect(claim.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(claim.buffers).toBeLessThanOrEqual(MAX_BUFFERS);

    const ofSmall = await explainedClaim(small);
    expect(ofSmall.claimed).not.toBeNull();
    expect(claim.rows).toBeLessThanOrEqual(ofSmall.rows + 2);
  });

  it('reads a few rows after ANALYZE, and with no campaign named, takes the most overdue task of all active campaigns', async () => {
    await sql(`ANALYZE`);
    const expected = await next(big);
    const claim = await explainedClaim(big);
    expect(claim.claimed).toBe(expected);
    expect(claim.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(claim.buffers).toBeLessThanOrEqual(MAX_BUFFERS);

    const expectedOfAll = await next(big, small);
    const any = await explainedClaim();
    expect(any.claimed).toBe(expectedOfAll);
    expect(any.rows).toBeLessThanOrEqual(MAX_ROWS);
  });

  it('reads a few rows when every task of the campaign waits for an earlier step, and takes the one whose earlier step closed', async () => {
    // The day's look-ups are used up: every look-up waits until tomorrow (deferKind), and every
    // message and email waits for its look-up. 6 668 due tasks, none ready.
    const tomorrow = new Date('2026-11-19T00:00:00.000Z');
    await store.deferKind({ ownerId, campaignId: big, scope: 'campaign', kind: 'profile_lookup', until: tomorrow, now });
    // As autovacuum would after a change of this size: what is measured is the claim, not the dead rows it left.
    await sql(`VACUUM outreach_tasks`);
    const none = await explainedClaim(big);
    expect(none.claimed).toBeNull();
    expect(none.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(none.buffers).toBeLessThanOrEqual(MAX_BUFFERS);

    // One look-up closes (however it is closed): that lead's message is ready, and it is the one claimed.
    const [lookUp] = await sql<{ id: string; lead_id: string }[]>(
      `SELECT id, lead_id FROM outreach_tasks WHERE campaign_id = $1 AND step = 1 AND status = 'Pending' ORDER BY id DESC LIMIT 1`,
      [big],
    );
    await sql(`UPDATE outreach_tasks SET status = 'Failed', completed_at = $2 WHERE id = $1`, [lookUp.id, now]);
    const [message] = await sql<{ id: string }[]>(`SELECT id FROM outreach_tasks WHERE lead_id = $1 AND step = 2`, [lookUp.lead_id]);
    const one = await explainedClaim(big);
    expect(one.claimed).toBe(message.id);
    expect(one.rows).toBeLessThanOrEqual(MAX_ROWS);
    // Its email waits for the message.
    expect(await explainedClaim(big)).toMatchObject({ claimed: null });
  });

  it("does not read a paused campaign's due tasks", async () => {
    await sql(`UPDATE outreach_tasks SET next_run_at = $2 WHERE campaign_id = $1 AND status = 'Pending' AND step = 1`, [big, now]);
    await campaigns.update(ownerId, big, { status: 'paused' }, now, 'active');
    await sql(`VACUUM outreach_tasks`);
    const expected = await next(small);
    const claim = await explainedClaim();
    expect(claim.claimed).toBe(expected);
    expect(claim.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(claim.buffers).toBeLessThanOrEqual(MAX_BUFFERS);
  });

  it('marks the tasks of campaigns under way when the migration runs: a step is ready when no earlier step of its lead is open', async () => {
    await undoMigrationsDownTo(db.database, 'OutreachClaim1766275200000');
    // Three leads of the small campaign, as an upgrade may find them: steps done, failed, cancelled or held for review.
    const leads = await sql<{ lead_id: string }[]>(
      `SELECT DISTINCT lead_id FROM outreach_tasks WHERE campaign_id = $1 AND status = 'Pending' ORDER BY lead_id LIMIT 3`,
      [small],
    );
    const [done, held, skipped] = leads.map((lead) => lead.lead_id);
    const set = (leadId: string, step: number, status: string) =>
      sql(`UPDATE outreach_tasks SET status = $3 WHERE lead_id = $1 AND step = $2`, [leadId, step, status]);
    await set(done, 1, 'Completed');
    await set(held, 1, 'AwaitingReview');
    await set(skipped, 1, 'Failed');
    await set(skipped, 2, 'Cancelled');
    await db.database.runMigrations();

    const ready = async (leadId: string) =>
      (await sql<{ ready: boolean }[]>(`SELECT ready FROM outreach_tasks WHERE lead_id = $1 ORDER BY step`, [leadId])).map(
        (row) => row.ready,
      );
    expect(await ready(done)).toEqual([true, true, false]);
    expect(await ready(held)).toEqual([true, false, false]);
    expect(await ready(skipped)).toEqual([true, true, true]);
    // And the claim takes them: every task it can, until none is left, of which the steps whose look-up
    // closed, and none whose earlier step is open (held for review, or just claimed).
    const step = async (leadId: string, n: number) =>
      (await sql<{ id: string }[]>(`SELECT id FROM outreach_tasks WHERE lead_id = $1 AND step = $2`, [leadId, n]))[0].id;
    const claimed: string[] = [];
    for (let id = (await explainedClaim(small)).claimed; id !== null; id = (await explainedClaim(small)).claimed) claimed.push(id);
    expect(claimed).toEqual(expect.arrayContaining([await step(done, 2), await step(skipped, 3)]));
    expect(claimed).not.toContain(await step(done, 3));
    expect(claimed).not.toContain(await step(held, 2));
  });
});
