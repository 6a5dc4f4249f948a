import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { signUpAndIn } from '../support/accounts';
import { leads, startedCampaign } from '../support/outreach';
import { TEST_JWT_SECRET, useTestApp } from '../support/test-app';
import { usingPostgresServer, testDataRoot } from '../support/test-database';
import { ROOT, useBuiltService } from '../support/built-service';

/**
 * Worker processes (`node dist/worker.js`, what `npm run worker` runs) against one
 * PostgreSQL server. PGlite is one process's database, so these run in the PostgreSQL pass.
 */
const OUT_DIR = join(ROOT, 'dist-test-workers');
const WORKER = join(OUT_DIR, 'worker.js');

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

describeOnPostgres('outreach worker processes on PostgreSQL', () => {
  let sql: DataSource;
  let dataDir: string;
  const children = new Set<ChildProcess>();
  const outputs: (() => string)[] = [];
  const sut = useTestApp({
    beforeClose: () => {
      for (const child of children) child.kill('SIGKILL');
    },
  });
  useBuiltService(OUT_DIR);

  beforeAll(async () => {
    sql = sut.app.get(DataSource);
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-workers-'));
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  function startWorker(env: Record<string, string> = {}): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
    if (sut.db.settings.kind !== 'server') throw new Error('PostgreSQL only');
    const child = spawn(process.execPath, [WORKER], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: sut.db.settings.url,
        JWT_SECRET: TEST_JWT_SECRET,
        BRIDLE_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        OUTREACH_POLL_INTERVAL_MS: '50',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        children.delete(child);
        resolve(code);
      }),
    );
    outputs.push(() => output);
    return { child, exited, output: () => output };
  }

  async function until<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 90_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const value = await probe();
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // What the workers said is the first thing to read when this fails.
    throw new Error(`timed out waiting for ${what}; worker output:\n${outputs.map((output) => output().slice(-2000)).join('\n---\n')}`);
  }

  async function count(query: string, parameters: unknown[] = []): Promise<number> {
    const rows = await sql.query<{ n: string }[]>(query, parameters);
    return Number(rows[0].n);
  }

  it('4 workers on a campaign of 200 tasks: exactly 50 per limited kind, no task twice, every action audited first', async () => {
    const user = await signUpAndIn(sut.http);
    // 100 leads with no email: 100 look-ups and 100 messages, each kind limited to 50 a day.
    const campaignId = await startedCampaign(sut.http, user, 'Two hundred', leads(100, 'crowd', { email: false }));
    expect(await count(`SELECT count(*) AS n FROM outreach_tasks WHERE campaign_id = $1`, [campaignId])).toBe(200);

    const workers = Array.from({ length: 4 }, () => startWorker());
    const settled = async () => {
      // Nothing held, and nothing due that a worker could claim (a message waits for its look-up).
      const busy = await count(
        `SELECT count(*) AS n FROM outreach_tasks t WHERE t.campaign_id = $1
           AND (t.status = 'InProgress' OR (t.status = 'Pending' AND t.next_run_at <= now() AND NOT EXISTS
             (SELECT 1 FROM outreach_tasks p WHERE p.lead_id = t.lead_id AND p.step < t.step AND p.status IN ('Pending', 'InProgress'))))`,
        [campaignId],
      );
      const done = await count(`SELECT count(*) AS n FROM outreach_actions WHERE campaign_id = $1 AND status <> 'in_flight'`, [campaignId]);
      return busy === 0 && done >= 100;
    };
    await until(settled, 'the campaign to use its day', 120_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const worker of workers) worker.child.kill('SIGTERM');
    const codes = await Promise.all(workers.map((worker) => worker.exited));
    expect(codes).toEqual([0, 0, 0, 0]);

    const byKind = await sql.query<{ kind: string; status: string; n: string }[]>(
      `SELECT kind, status, count(*) AS n FROM outreach_actions WHERE campaign_id = $1 GROUP BY kind, status ORDER BY kind`,
      [campaignId],
    );
    expect(byKind).toEqual([
      { kind: 'linkedin_message', status: 'succeeded', n: '50' },
      { kind: 'profile_lookup', status: 'succeeded', n: '50' },
    ]);
    const ledger = await sql.query<{ kind: string; used: number }[]>(
      `SELECT kind, used FROM quota_ledger WHERE scope = 'campaign' AND scope_id = $1 ORDER BY kind`,
      [campaignId],
    );
    expect(ledger).toEqual([
      { kind: 'linkedin_message', used: 50 },
      { kind: 'profile_lookup', used: 50 },
    ]);
    expect(
      await count(
        `SELECT count(*) AS n FROM (SELECT task_id FROM outreach_actions WHERE campaign_id = $1 GROUP BY task_id HAVING count(*) > 1) d`,
        [campaignId],
      ),
    ).toBe(0);
    expect(
      await count(
        `SELECT count(*) AS n FROM (SELECT profile_url, kind FROM sandbox_linkedin_actions WHERE profile_url LIKE '%/crowd-%' GROUP BY profile_url, kind HAVING count(*) > 1 OR max(calls) > 1) d`,
      ),
    ).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM sandbox_linkedin_actions WHERE profile_url LIKE '%/crowd-%'`)).toBe(100);
    // Every action has its pending audit row, written before its outcome row.
    expect(
      await count(
        `SELECT count(*) AS n FROM outreach_actions a
         JOIN audit_log p ON p.seq = a.pending_audit_seq AND p.status = 'pending'
         JOIN audit_log o ON o.pending_seq = p.seq AND o.seq > p.seq AND o.status = 'succeeded'
         WHERE a.campaign_id = $1`,
        [campaignId],
      ),
    ).toBe(100);
  }, 180_000);

  it('4 workers, a weekly limit of 7 LinkedIn messages over two campaigns: exactly 7 in the window, whatever the daily limits', async () => {
    const user = await signUpAndIn(sut.http);
    // Daily limits well above the week's: 50 a day per campaign and 100 per owner by default.
    const campaignIds = [
      await startedCampaign(sut.http, user, 'Weekly A', leads(10, 'weekly-a', { email: false })),
      await startedCampaign(sut.http, user, 'Weekly B', leads(10, 'weekly-b', { email: false })),
    ];
    // 2 messages 3 days ago (slots the ledger held before weekly limits existed count too): 5 are left.
    const today = new Date().toISOString().slice(0, 10);
    const day = (offset: number) => new Date(Date.parse(today) + offset * 86_400_000);
    await sql.query(
      `INSERT INTO quota_ledger (scope, scope_id, kind, day, used, "limit") VALUES ('owner', $1, 'linkedin_message', $2, 2, 100)`,
      [user.userId, day(-3).toISOString().slice(0, 10)],
    );

    const workers = Array.from({ length: 4 }, () => startWorker({ OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES: '7' }));
    const settled = async () => {
      const busy = await count(
        `SELECT count(*) AS n FROM outreach_tasks t WHERE t.campaign_id = ANY($1::uuid[])
           AND (t.status = 'InProgress' OR (t.status = 'Pending' AND t.next_run_at <= now() AND NOT EXISTS
             (SELECT 1 FROM outreach_tasks p WHERE p.lead_id = t.lead_id AND p.step < t.step AND p.status IN ('Pending', 'InProgress'))))`,
        [campaignIds],
      );
      const looked = await count(
        `SELECT count(*) AS n FROM outreach_actions WHERE campaign_id = ANY($1::uuid[]) AND kind = 'profile_lookup' AND status <> 'in_flight'`,
        [campaignIds],
      );
      return busy === 0 && looked === 20;
    };
    await until(settled, 'both campaigns to use their week', 120_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const worker of workers) worker.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0, 0, 0]);

    const byKind = await sql.query<{ kind: string; status: string; n: string }[]>(
      `SELECT kind, status, count(*) AS n FROM outreach_actions WHERE campaign_id = ANY($1::uuid[]) GROUP BY kind, status ORDER BY kind`,
      [campaignIds],
    );
    expect(byKind).toEqual([
      { kind: 'linkedin_message', status: 'succeeded', n: '5' },
      { kind: 'profile_lookup', status: 'succeeded', n: '20' },
    ]);
    // Exactly 7 in the owner's window (today and the 6 days before): the 2 from before and 5 now.
    expect(
      await count(
        `SELECT coalesce(sum(used), 0) AS n FROM quota_ledger
         WHERE scope = 'owner' AND scope_id = $1 AND kind = 'linkedin_message' AND day > $2::date - 7`,
        [user.userId, today],
      ),
    ).toBe(7);
    expect(await count(`SELECT count(*) AS n FROM sandbox_linkedin_actions WHERE kind = 'message' AND profile_url LIKE '%/weekly-%'`)).toBe(
      5,
    );
    // Every other message waits for the oldest counted day to leave the window (3 days ago + 7 days), not for midnight.
    const waiting = await sql.query<{ status: string; last_error: string; next_run_at: Date; n: string }[]>(
      `SELECT status, last_error, next_run_at, count(*) AS n FROM outreach_tasks
       WHERE campaign_id = ANY($1::uuid[]) AND type = 'SendLinkedInMessage' AND status <> 'Completed'
       GROUP BY status, last_error, next_run_at`,
      [campaignIds],
    );
    expect(waiting).toEqual([{ status: 'Pending', last_error: 'QUOTA_EXCEEDED', next_run_at: day(4), n: '15' }]);
    // The refusals say which limit and until when.
    const refusals = await sql.query<{ result: unknown }[]>(
      `SELECT result FROM audit_log WHERE campaign_id = ANY($1::uuid[]) AND error_code = 'QUOTA_EXCEEDED'`,
      [campaignIds],
    );
    expect(refusals.length).toBeGreaterThan(0);
    const freesAt = day(4).toISOString();
    for (const { result } of refusals) {
      // Refused by the context check before the model, or by the reservation itself after it.
      expect([
        { problems: [`the owner's weekly LinkedIn message limit (7 in 7 days) is reached; the next slot frees at ${freesAt}`] },
        { scope: 'owner', window: 'week', limit: 7, used: 7, until: freesAt },
      ]).toContainEqual(result);
    }
  }, 180_000);

  it('a worker killed after the audit row: after restart and the sweeper, each key reached the channel at most once', async () => {
    const env = { OUTREACH_LEASE_MS: '2000', OUTREACH_ACTION_TIMEOUT_MS: '600000', OUTREACH_SWEEP_INTERVAL_MS: '300' };
    const user = await signUpAndIn(sut.http);

    // 1. Killed after the channel recorded the look-up: the sweeper finds it by key and completes the task.
    const sentId = await startedCampaign(sut.http, user, 'Killed after', leads(1, 'kill-after', { email: false }));
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/kill-after-1/', 'HANG_AFTER')`,
    );
    const first = startWorker(env);
    const key = await until(async () => {
      const rows = await sql.query<{ idempotency_key: string }[]>(
        `SELECT a.idempotency_key FROM outreach_actions a JOIN sandbox_linkedin_actions s USING (idempotency_key)
         WHERE a.campaign_id = $1 AND a.status = 'in_flight'`,
        [sentId],
      );
      return rows[0]?.idempotency_key;
    }, 'the action to reach the sandbox');
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startWorker(env);
    await until(
      async () =>
        (await sql.query<{ status: string }[]>(`SELECT status FROM outreach_actions WHERE idempotency_key = $1`, [key]))[0]?.status ===
        'succeeded',
      'the sweeper to confirm the action',
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await sql.query(`SELECT calls FROM sandbox_linkedin_actions WHERE idempotency_key = $1`, [key])).toEqual([{ calls: 1 }]);
    const [task] = await sql.query<{ status: string }[]>(
      `SELECT t.status FROM outreach_tasks t JOIN outreach_actions a ON a.task_id = t.id WHERE a.idempotency_key = $1`,
      [key],
    );
    expect(task.status).toBe('Completed');
    expect(
      await count(
        `SELECT count(*) AS n FROM audit_log WHERE pending_seq = (SELECT pending_audit_seq FROM outreach_actions WHERE idempotency_key = $1)`,
        [key],
      ),
    ).toBe(1);

    // 2. Killed before the channel was reached: nothing to find, so it is `unknown` for a person — never re-sent.
    const lostId = await startedCampaign(sut.http, user, 'Killed before', leads(1, 'kill-before', { email: false }));
    await sql.query(
      `INSERT INTO sandbox_faults (channel, target, code) VALUES ('linkedin', 'https://www.linkedin.com/in/kill-before-1/', 'HANG_BEFORE')`,
    );
    const third = startWorker(env);
    const lostKey = await until(async () => {
      const rows = await sql.query<{ idempotency_key: string }[]>(
        `SELECT a.idempotency_key FROM outreach_actions a JOIN sandbox_faults f ON f.target = 'https://www.linkedin.com/in/kill-before-1/' AND f.remaining = 0
         WHERE a.campaign_id = $1 AND a.status = 'in_flight'`,
        [lostId],
      );
      return rows[0]?.idempotency_key;
    }, 'the action to hang');
    third.child.kill('SIGKILL');
    await third.exited;

    const fourth = startWorker(env);
    await until(
      async () =>
        (await sql.query<{ status: string }[]>(`SELECT status FROM outreach_actions WHERE idempotency_key = $1`, [lostKey]))[0]?.status ===
        'unknown',
      'the sweeper to settle the action',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    fourth.child.kill('SIGTERM');
    expect(await fourth.exited).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM sandbox_linkedin_actions WHERE idempotency_key = $1`, [lostKey])).toBe(0);
    const tasks = await sql.query<{ type: string; status: string; last_error: string | null }[]>(
      `SELECT type, status, last_error FROM outreach_tasks WHERE campaign_id = $1 ORDER BY step`,
      [lostId],
    );
    expect(tasks[0]).toEqual({ type: 'ScrapeProfile', status: 'Failed', last_error: 'UNKNOWN_OUTCOME' });
    expect(
      await count(
        `SELECT count(*) AS n FROM outreach_actions a JOIN outreach_tasks t ON t.id = a.task_id WHERE t.campaign_id = $1 AND t.type = 'ScrapeProfile'`,
        [lostId],
      ),
    ).toBe(1);
  }, 180_000);
});
