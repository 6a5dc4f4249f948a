import { DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { STRAY_ROWS } from '../support/audit-chain';
import { type CycleBody, leads, runCycle, startedCampaign } from '../support/outreach';
import { commitsOf, countStatements } from '../support/statement-counter';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** What one outreach cycle sends to the database (POST …/cycles, offline planner, sandbox channels). */
describe('SQL statements per outreach cycle', () => {
  let db: TestDatabase;
  let sut: TestApp;
  let user: SignedInUser;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Periodic jobs run at start and then not again during the test: their statements are no cycle's.
    sut = await startTestApp(db, {
      AUDIT_SEAL_INTERVAL_MS: '60000',
      OUTREACH_SWEEP_INTERVAL_MS: '60000',
      CHAT_SWEEP_INTERVAL_MS: '60000',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    });
    user = await signUpAndIn(sut.http);
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  it('acts in at most 13 round trips and 8 commits; the outcome row rides in the statement that settles the action', async () => {
    const campaignId = await startedCampaign(sut.http, user, 'Budget', leads(2, 'budget'));
    await runCycle(sut.http, user, campaignId); // connections and prepared statements warm
    const counter = countStatements();
    let outcome: CycleBody;
    try {
      outcome = await runCycle(sut.http, user, campaignId);
    } finally {
      counter.stop();
    }
    expect(outcome).toMatchObject({ status: 'completed', execution: { status: 'succeeded' } });
    // The route's account and campaign, the claim, the reload, the reservation's transaction
    // (6: the pending row, the lease and the action row, two for the quota), the sandbox
    // channel's call, the settlement with the task's release and the outcome row, the decision.
    const { statements } = counter;
    expect({ count: statements.length, commits: commitsOf(statements) }).toEqual({
      count: Math.min(statements.length, 13),
      commits: Math.min(commitsOf(statements), 8),
    });
    // The pending row before the channel is called, on its own; the outcome row with the settlement.
    expect(statements.filter((statement) => /^\s*INSERT INTO audit_log/.test(statement))).toHaveLength(1);
    const settling = statements.filter((statement) => statement.includes('UPDATE outreach_actions'));
    expect(settling).toHaveLength(1);
    expect(settling[0]).toMatch(/INSERT INTO audit_log/);
    // Written that way, the outcome row is queued for the sealer like any other.
    const sql = sut.app.get(DataSource);
    const [row] = await sql.query<{ status: string; pending: string | null }[]>(
      `SELECT status, pending_seq AS pending FROM audit_log WHERE decision_id = $1 AND pending_seq IS NOT NULL`,
      [outcome.decisionId],
    );
    expect(row).toEqual({ status: 'succeeded', pending: expect.any(String) });
    expect(await sql.query(STRAY_ROWS)).toEqual([]);
  });
});
