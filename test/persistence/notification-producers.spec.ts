import { randomUUID } from 'node:crypto';
import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import type { ClaimedTask } from '../../src/application/outreach/ports/outreach-cycle-store.port';
import type { DraftProposal } from '../../src/domain/outreach/review';
import { PostgresConversationStore } from '../../src/infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresOutreachCycleStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import { PostgresOutreachDraftStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-draft-store';
import { PostgresPolicyStore } from '../../src/infrastructure/persistence/repositories/postgres-policy-store';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { addUser } from '../factories/users';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { useOpenDatabase } from '../support/persistence';

interface Row {
  recipient_id: string | null;
  event: string;
  subject: Record<string, unknown>;
  facts: Record<string, unknown>;
}

const HOUR = 3_600_000;

/**
 * Every producer writes its notification in the transaction of what caused it: exactly the
 * rows it should when the cause commits, none when it rolls back. The roll-back comes at
 * COMMIT (a deferred constraint trigger on the cause's own table), after everything the
 * producer wrote, so a notification written in a transaction of its own would survive it.
 */
describe(`notification producers on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let drafts: PostgresOutreachDraftStore;
  let cycles: PostgresOutreachCycleStore;
  const sql = <T>(query: string, parameters: unknown[] = []) => db.database.query<T>(query, parameters);

  beforeAll(() => {
    const appender = new AuditAppender(new RecordingMetrics());
    cycles = new PostgresOutreachCycleStore(db.database, appender, ErasedAddressKey.derive('test secret'));
    drafts = new PostgresOutreachDraftStore(db.database, appender, ErasedAddressKey.derive('test secret'));
  });

  const about = (key: string, value: string) =>
    sql<Row[]>(`SELECT recipient_id, event, subject, facts FROM notifications WHERE subject ->> $1 = $2 ORDER BY seq`, [key, value]);

  /** Makes every commit of a transaction that wrote a row of `table` matching `when` fail; @returns what removes it. */
  async function failingAtCommit(table: string, event: 'INSERT' | 'UPDATE', when: string): Promise<() => Promise<void>> {
    const name = `notify_fail_${uniqueSlug()}`;
    await sql(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the cause rolls back'; END $$`);
    await sql(
      `CREATE CONSTRAINT TRIGGER ${name} AFTER ${event} ON ${table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
    );
    return async () => {
      await sql(`DROP TRIGGER ${name} ON ${table}`);
      await sql(`DROP FUNCTION ${name}()`);
    };
  }

  /** A campaign in `all` mode with one lead, its look-up claimed at `now`. */
  async function claimed(now: Date): Promise<{ claim: ClaimedTask; proposal: DraftProposal; audit: ToolAuditEntry }> {
    const owner = await addUser(db.database);
    const slug = uniqueSlug();
    const campaignId = await addActiveCampaign(db.database, owner.id, {
      now,
      campaign: { name: 'Notified', approvalMode: 'all' },
      leads: [aLead(slug, { name: 'Ada' })],
    });
    const context = {
      day: now.toISOString().slice(0, 10),
      ownerLimits: {
        daily: { profile_lookup: 100, linkedin_message: 100, email: 100 },
        weekly: { profile_lookup: 500, linkedin_message: 500, email: 500 },
      },
      secretNames: [],
    };
    const { claim } = (await cycles.claimTask({ workerId: 'w-1', now, leaseMs: 60_000, campaignId, ...context }))!;
    const proposal: DraftProposal = {
      action: 'linkedin_scrape_profile',
      args: { profileUrl: `https://www.linkedin.com/in/${slug}/`, fields: ['name'] },
      reason: 'Look the lead up before writing',
    };
    const audit: ToolAuditEntry = {
      source: 'outreach',
      actorId: owner.id,
      campaignId,
      outreachTaskId: claim.taskId,
      tool: proposal.action,
      arguments: proposal.args,
      securityEvents: [],
    };
    return { claim, proposal, audit };
  }

  function hold(now: Date, taken: Awaited<ReturnType<typeof claimed>>, onExpiry?: 'reject' | 'escalate') {
    return drafts.hold({
      ...taken,
      onExpiry,
      decisionId: '00000000-0000-4000-8000-000000000001',
      kind: 'profile_lookup',
      limits: { campaign: { day: 50, week: null }, owner: { day: 100, week: null } },
      day: now.toISOString().slice(0, 10),
      now,
      expiresAt: new Date(now.getTime() + HOUR),
    });
  }

  async function held(now: Date, onExpiry?: 'reject' | 'escalate') {
    const taken = await claimed(now);
    const result = await hold(now, taken, onExpiry);
    if (result.status !== 'held') throw new Error(result.status);
    return { ...taken, draftId: result.draftId };
  }

  it('a held draft: draft.awaiting_review to its owner; none when the hold rolls back', async () => {
    const now = new Date();
    const { claim, draftId } = await held(now);
    expect(await about('id', draftId)).toEqual([
      {
        recipient_id: claim.ownerId,
        event: 'draft.awaiting_review',
        subject: { kind: 'draft', id: draftId },
        facts: { action: 'linkedin_scrape_profile', campaignId: claim.campaignId, expiresAt: new Date(now.getTime() + HOUR).toISOString() },
      },
    ]);

    const taken = await claimed(now);
    const remove = await failingAtCommit('outreach_drafts', 'INSERT', `NEW.campaign_id = '${taken.claim.campaignId}'`);
    try {
      await expect(hold(now, taken)).rejects.toThrow(/the cause rolls back/);
    } finally {
      await remove();
    }
    expect(await sql(`SELECT 1 FROM outreach_drafts WHERE campaign_id = $1`, [taken.claim.campaignId])).toEqual([]);
    expect(await about('campaignId', taken.claim.campaignId)).toEqual([]);
  });

  it('an escalated draft: draft.escalated to every admin and to its owner; none when the escalation rolls back', async () => {
    const now = new Date(Date.now() + 10 * HOUR);
    const { claim, draftId } = await held(now, 'escalate');
    const doomed = await held(now, 'escalate');
    const remove = await failingAtCommit('outreach_drafts', 'UPDATE', `NEW.id = '${doomed.draftId}' AND NEW.escalated_at IS NOT NULL`);
    try {
      await expect(drafts.expire(new Date(now.getTime() + 2 * HOUR), 1000)).rejects.toThrow(/the cause rolls back/);
    } finally {
      await remove();
    }
    expect((await about('id', draftId)).map((row) => row.event)).toEqual(['draft.awaiting_review']);
    expect((await about('id', doomed.draftId)).map((row) => row.event)).toEqual(['draft.awaiting_review']);

    await drafts.expire(new Date(now.getTime() + 2 * HOUR), 1000);
    const escalated = (await about('id', draftId)).filter((row) => row.event === 'draft.escalated');
    expect(escalated.map((row) => row.recipient_id)).toEqual([null, claim.ownerId]);
    expect(escalated[0].facts).toEqual({
      action: 'linkedin_scrape_profile',
      campaignId: claim.campaignId,
      ownerId: claim.ownerId,
      expiresAt: new Date(now.getTime() + 3 * HOUR).toISOString(),
    });
  });

  it('an expired draft: draft.expired to its owner, naming what its task does next, whatever the fallback; none when the expiry rolls back', async () => {
    const now = new Date(Date.now() + 20 * HOUR);
    const redraft = await held(now);
    const cancelled = await held(now, 'reject');
    const escalated = await held(now, 'escalate');
    const remove = await failingAtCommit('outreach_drafts', 'UPDATE', `NEW.id = '${redraft.draftId}' AND NEW.status = 'expired'`);
    try {
      await expect(drafts.expire(new Date(now.getTime() + 2 * HOUR), 1000)).rejects.toThrow(/the cause rolls back/);
    } finally {
      await remove();
    }
    expect((await about('id', redraft.draftId)).map((row) => row.event)).toEqual(['draft.awaiting_review']);
    expect((await about('id', cancelled.draftId)).map((row) => row.event)).toEqual(['draft.awaiting_review']);

    // The owner's hour passes: two expire, the third goes to the admins; then the admins' hour passes.
    await drafts.expire(new Date(now.getTime() + 2 * HOUR), 1000);
    await drafts.expire(new Date(now.getTime() + 4 * HOUR), 1000);
    const expiry = async (draftId: string) => (await about('id', draftId)).filter((row) => row.event === 'draft.expired');
    expect(await expiry(redraft.draftId)).toEqual([
      {
        recipient_id: redraft.claim.ownerId,
        event: 'draft.expired',
        subject: { kind: 'draft', id: redraft.draftId },
        facts: { action: 'linkedin_scrape_profile', campaignId: redraft.claim.campaignId, next: 'redraft', escalated: false },
      },
    ]);
    expect((await expiry(cancelled.draftId)).map((row) => [row.recipient_id, row.facts.next, row.facts.escalated])).toEqual([
      [cancelled.claim.ownerId, 'task_cancelled', false],
    ]);
    expect((await expiry(escalated.draftId)).map((row) => [row.recipient_id, row.facts.next, row.facts.escalated])).toEqual([
      [escalated.claim.ownerId, 'task_cancelled', true],
    ]);
  });

  it('an approved draft voided because its task ended is no expiry of anyone’s: no draft.expired', async () => {
    const now = new Date(Date.now() + 30 * HOUR);
    const { claim, draftId } = await held(now);
    const [{ arguments_hash: argumentsHash }] = await sql<{ arguments_hash: string }[]>(
      `SELECT arguments_hash FROM outreach_drafts WHERE id = $1`,
      [draftId],
    );
    const approved = await drafts.approve({ ownerId: claim.ownerId, draftId, argumentsHash, edited: null, reviewerId: claim.ownerId, now });
    expect(approved.ok).toBe(true);
    await sql(`UPDATE outreach_tasks SET status = 'Cancelled' WHERE id = $1`, [claim.taskId]);
    expect(await drafts.expire(new Date(now.getTime() + 2 * HOUR), 1000)).toEqual(expect.objectContaining({ voided: 1 }));
    expect((await about('id', draftId)).map((row) => row.event)).toEqual(['draft.awaiting_review']);
  });

  it('a question asked in the console instead: confirmation.waiting in the statement that stores it; none when it rolls back', async () => {
    const store = new PostgresConversationStore(db.database);
    const user = await addUser(db.database);
    const now = new Date();
    const question = (id: string) => ({
      id,
      tool: 'delete_task',
      arguments: { tasks: [{ number: 1, title: 'Buy milk' }] },
      prompt: "Do you really want to delete 'Buy milk'? Reply 'yes delete' to confirm.",
      expiresAt: new Date(now.getTime() + 600_000),
    });
    const asked = randomUUID();
    const conversationId = await store.openWithQuestion({ userId: user.id, title: 'Confirm: delete', question: question(asked), now });
    expect(await about('id', asked)).toEqual([
      {
        recipient_id: user.id,
        event: 'confirmation.waiting',
        subject: { kind: 'confirmation', id: asked, conversationId },
        facts: { tool: 'delete_task', expiresAt: new Date(now.getTime() + 600_000).toISOString() },
      },
    ]);

    const doomed = randomUUID();
    const remove = await failingAtCommit('pending_confirmations', 'INSERT', `NEW.id = '${doomed}'`);
    try {
      await expect(store.openWithQuestion({ userId: user.id, title: 'Confirm: delete', question: question(doomed), now })).rejects.toThrow(
        /the cause rolls back/,
      );
    } finally {
      await remove();
    }
    expect(await about('id', doomed)).toEqual([]);
  });

  it('a campaign completed by the cycle: campaign.finished to its owner with how its tasks ended; none when it rolls back', async () => {
    const now = new Date();
    const owner = await addUser(db.database);
    const campaignId = await addActiveCampaign(db.database, owner.id, { now, leads: [] });
    const doomedId = await addActiveCampaign(db.database, owner.id, { now, leads: [] });
    const remove = await failingAtCommit('campaigns', 'UPDATE', `NEW.id = '${doomedId}' AND NEW.status = 'completed'`);
    try {
      await expect(cycles.completeCampaign(doomedId, now)).rejects.toThrow(/the cause rolls back/);
    } finally {
      await remove();
    }
    expect(await about('id', doomedId)).toEqual([]);

    expect(await cycles.completeCampaign(campaignId, now)).toBe(true);
    expect(await cycles.completeCampaign(campaignId, now)).toBe(false);
    expect(await about('id', campaignId)).toEqual([
      {
        recipient_id: owner.id,
        event: 'campaign.finished',
        subject: { kind: 'campaign', id: campaignId },
        facts: { completed: 0, failed: 0, cancelled: 0 },
      },
    ]);
  });

  it('a stored policy version: policy.stored to every admin, naming its author; none when the save rolls back', async () => {
    const store = new PostgresPolicyStore(db.database);
    const admin = await addUser(db.database, { role: 'admin' });
    const author = { authorId: admin.id, authorEmail: admin.email };
    const remove = await failingAtCommit('policy_versions', 'INSERT', `NEW.reason = 'doomed'`);
    try {
      await expect(store.save({ document: { rules: [] }, people: {}, reason: 'doomed', ...author })).rejects.toThrow(
        /the cause rolls back/,
      );
    } finally {
      await remove();
    }
    const before = await sql<{ n: number }[]>(`SELECT count(*)::int AS n FROM notifications WHERE event = 'policy.stored'`);
    expect(before[0].n).toBe(0);

    const stored = await store.save({ document: { rules: [] }, people: {}, reason: 'kept', ...author });
    expect(await sql<Row[]>(`SELECT recipient_id, event, subject, facts FROM notifications WHERE event = 'policy.stored'`)).toEqual([
      {
        recipient_id: null,
        event: 'policy.stored',
        subject: { kind: 'policy', version: stored.version },
        facts: { version: stored.version, rules: 0, actorId: admin.id },
      },
    ]);
  });
});
