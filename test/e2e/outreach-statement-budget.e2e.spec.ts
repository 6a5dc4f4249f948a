import { DataSource } from 'typeorm';
import { STRAY_ROWS } from '../support/audit-chain';
import { type CycleBody, leads, runCycle, startedCampaign } from '../support/outreach';
import { BUSY_BACKGROUND, commitsOf, countStatements } from '../support/statement-counter';
import { useTestApp } from '../support/test-app';

/** What one outreach cycle sends to the database (POST …/cycles, offline planner, sandbox channels). */
describe('SQL statements per outreach cycle', () => {
  // The background jobs run as often as they may: their statements are no cycle's, and none is counted.
  // The background jobs run as often as they may: none of their statements is the cycle's.
  const sut = useTestApp({ env: { ...BUSY_BACKGROUND, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  const user = sut.user();

  /** One cycle over HTTP, and the statements it sent. */
  async function countedCycle(campaignId: string): Promise<{ outcome: CycleBody; statements: string[] }> {
    const counter = countStatements({ requestsTo: sut.app.getHttpServer() });
    try {
      return { outcome: await runCycle(sut.http, user, campaignId), statements: counter.statements };
    } finally {
      counter.stop();
    }
  }

  it('acts in at most 11 round trips and 7 commits; each audit row rides in the statement of the write it records', async () => {
    const campaignId = await startedCampaign(sut.http, user, 'Budget', leads(2, 'budget'));
    await runCycle(sut.http, user, campaignId); // connections and prepared statements warm
    const { outcome, statements } = await countedCycle(campaignId);
    expect(outcome).toMatchObject({ status: 'completed', execution: { status: 'succeeded' } });
    // The route's per-person count (the api limit), its account and campaign, the claim with the task's context, the reservation's transaction
    // (5: the pending row with the lease and the action row, two for the quota), the sandbox
    // channel's call, and the settlement with the task's release, the outcome row and the
    // cycle's decision row.
    expect({ count: statements.length, commits: commitsOf(statements) }).toEqual({
      count: Math.min(statements.length, 11),
      commits: Math.min(commitsOf(statements), 7),
    });
    // The pending row with the action row, before the channel is called; the outcome row with the settlement.
    expect(statements.filter((statement) => /^\s*INSERT INTO audit_log/.test(statement))).toHaveLength(0);
    const beginning = statements.filter((statement) => statement.includes('INSERT INTO outreach_actions'));
    expect(beginning).toHaveLength(1);
    expect(beginning[0]).toMatch(/INSERT INTO audit_log/);
    const settling = statements.filter((statement) => statement.includes('UPDATE outreach_actions'));
    expect(settling).toHaveLength(1);
    expect(settling[0]).toMatch(/INSERT INTO audit_log/);
    // The cycle's decision row: opened as pending by the claim's statement, before the model is
    // asked, and settled by the settlement's; no statement of its own.
    const claiming = statements.filter((statement) => statement.startsWith('WITH claimed AS'));
    expect(claiming).toHaveLength(1);
    expect(statements.filter((statement) => statement.includes('INSERT INTO decision_logs'))).toEqual([claiming[0], settling[0]]);
    expect(settling[0]).toMatch(/INSERT INTO decision_logs[^;]*ON CONFLICT \(id\) DO UPDATE/);
    // Written that way, both rows are queued for the sealer like any other, the action names
    // its pending row, and the outcome row points at it.
    const sql = sut.app.get(DataSource);
    const rows = await sql.query<{ seq: string; status: string; pending: string | null; action_pending: string }[]>(
      `SELECT a.seq, a.status, a.pending_seq AS pending, o.pending_audit_seq AS action_pending
         FROM audit_log a JOIN outreach_actions o ON o.decision_id = a.decision_id
        WHERE a.decision_id = $1 ORDER BY a.seq`,
      [outcome.decisionId],
    );
    const [decision] = await sql.query<{ status: string; decision_type: string }[]>(
      `SELECT status, decision_type FROM decision_logs WHERE id = $1`,
      [outcome.decisionId],
    );
    expect(decision).toEqual({ status: 'completed', decision_type: outcome.proposal!.action });
    const pendingSeq = rows[0]?.seq;
    expect(rows).toEqual([
      { seq: pendingSeq, status: 'pending', pending: null, action_pending: pendingSeq },
      { seq: expect.any(String), status: 'succeeded', pending: pendingSeq, action_pending: pendingSeq },
    ]);
    expect(await sql.query(STRAY_ROWS)).toEqual([]);
  });

  it("writes a cycle's decision row in the statement that releases its task when it does not act", async () => {
    const campaignId = await startedCampaign(sut.http, user, 'No look-ups', leads(2, 'no-lookups', { email: false }), {
      profile_lookup: 0,
    });
    await runCycle(sut.http, user, campaignId); // warm, and defers every look-up of the campaign
    await sut.app
      .get(DataSource)
      .query(`UPDATE outreach_tasks SET next_run_at = now() - interval '1 minute' WHERE campaign_id = $1 AND status = 'Pending'`, [
        campaignId,
      ]);
    const { outcome, statements } = await countedCycle(campaignId);
    expect(outcome).toMatchObject({ status: 'deferred', code: 'QUOTA_EXCEEDED' });
    // The route's per-person count, its account and campaign, the claim with the task's context, the refusal's audit row, the
    // deferral of the kind's other tasks, and the task's release with the decision row.
    expect({ count: statements.length, commits: commitsOf(statements) }).toEqual({
      count: Math.min(statements.length, 7),
      commits: Math.min(commitsOf(statements), 7),
    });
    // Opened as pending by the claim's statement, settled by the release's.
    const deciding = statements.filter((statement) => statement.includes('INSERT INTO decision_logs'));
    expect(deciding).toHaveLength(2);
    expect(deciding[0]).toMatch(/^WITH claimed AS/);
    expect(deciding[1]).toMatch(/UPDATE outreach_tasks SET/);
    const [decision] = await sut.app
      .get(DataSource)
      .query<{ status: string }[]>(`SELECT status FROM decision_logs WHERE id = $1`, [outcome.decisionId]);
    expect(decision).toEqual({ status: 'deferred' });
  });
});
