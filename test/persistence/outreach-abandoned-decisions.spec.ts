import { randomUUID } from 'node:crypto';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import type { ClaimInput } from '../../src/application/outreach/ports/outreach-cycle-store.port';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresConversationStore } from '../../src/infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresOutreachCycleStore } from '../../src/infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';
import { addActiveCampaign, aLead, uniqueSlug } from '../factories/campaigns';
import { anOutreachDecision, aTurnStart } from '../factories/conversations';
import { addUser } from '../factories/users';

/**
 * A cycle's decision row is opened pending by the claim and settled by the cycle's end; the
 * sweep (closeAbandonedDecisions) closes the ones whose worker died, and nothing else.
 */
describe(`${PostgresOutreachCycleStore.name}.closeAbandonedDecisions on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const now = new Date('2026-11-18T14:20:00.000Z');
  const cutOff = new Date(now.getTime() - 120_000);
  const before = (ms: number) => new Date(cutOff.getTime() - ms);
  const db = useOpenDatabase();
  let sut: PostgresOutreachCycleStore;
  let conversations: PostgresConversationStore;
  let ownerId: string;
  let campaignId: string;
  let claims = 0;

  const sql = <T>(query: string, parameters: unknown[] = []) => db.database.query<T>(query, parameters);

  const decisionOf = async (id: string) =>
    (
      await sql<{ decision_type: string; status: string; failure_class: string | null }[]>(
        `SELECT decision_type, status, failure_class FROM decision_logs WHERE id = $1`,
        [id],
      )
    )[0];

  /** Claims the campaign's next task, opening its cycle's decision row as pending at `openedAt`. */
  async function claimOpenedAt(openedAt: Date): Promise<{ decisionId: string; taskId: string }> {
    const decisionId = randomUUID();
    const input: ClaimInput = {
      workerId: `worker-${++claims}`,
      now,
      leaseMs: 60_000,
      campaignId,
      day: now.toISOString().slice(0, 10),
      ownerLimits: {
        daily: { profile_lookup: 100, linkedin_message: 100, email: 100 },
        weekly: { profile_lookup: 500, linkedin_message: 500, email: 500 },
      },
      secretNames: [],
      decision: { id: decisionId, provider: 'offline', model: 'test', createdAt: openedAt },
    };
    const work = await sut.claimTask(input);
    return { decisionId, taskId: work!.claim.taskId };
  }

  beforeAll(async () => {
    sut = new PostgresOutreachCycleStore(db.database, new AuditAppender(new RecordingMetrics()), ErasedAddressKey.derive('test secret'));
    conversations = new PostgresConversationStore(db.database);
    ownerId = (await addUser(db.database)).id;
    const tag = uniqueSlug();
    campaignId = await addActiveCampaign(db.database, ownerId, {
      now,
      campaign: { name: 'Abandoned' },
      leads: Array.from({ length: 4 }, (_, i) => aLead(`${tag}-${i}`, { name: `Lead ${i}` })),
      leadsAt: new Date(now.getTime() - 3_600_000),
    });
  });

  it('marks interrupted the pending rows of cycles opened before the cut-off, oldest first, and leaves every other row as it was', async () => {
    const oldest = await claimOpenedAt(before(60_000));
    const old = await claimOpenedAt(before(1));
    const live = await claimOpenedAt(new Date(cutOff.getTime() + 1));
    // A cycle as old that ended: its end settled its row.
    const settled = await claimOpenedAt(before(60_000));
    await sut.recordDecision(
      anOutreachDecision(
        { ownerId, campaignId, taskId: settled.taskId },
        { id: settled.decisionId, createdAt: before(60_000), model: 'test', promptTokens: 10, completionTokens: 5, durationMs: 40 },
      ),
    );
    // A chat turn cut off as long ago: its row (no campaign) is chat's sweeper's.
    const chatDecision = randomUUID();
    await conversations.startTurn(aTurnStart(ownerId, { message: 'hello', decisionId: chatDecision, now: before(60_000) }));
    expect(await decisionOf(oldest.decisionId)).toEqual({ decision_type: 'PENDING', status: 'pending', failure_class: null });
    expect(await decisionOf(chatDecision)).toEqual({ decision_type: 'PENDING', status: 'pending', failure_class: null });

    expect(await sut.closeAbandonedDecisions({ openedBefore: cutOff, limit: 1 })).toBe(1);
    expect(await decisionOf(oldest.decisionId)).toEqual({ decision_type: 'PENDING', status: 'interrupted', failure_class: 'INTERRUPTED' });
    expect(await decisionOf(old.decisionId)).toMatchObject({ status: 'pending' });

    expect(await sut.closeAbandonedDecisions({ openedBefore: cutOff, limit: 50 })).toBe(1);
    expect(await sut.closeAbandonedDecisions({ openedBefore: cutOff, limit: 50 })).toBe(0);
    expect(await decisionOf(old.decisionId)).toEqual({ decision_type: 'PENDING', status: 'interrupted', failure_class: 'INTERRUPTED' });
    expect(await decisionOf(live.decisionId)).toEqual({ decision_type: 'PENDING', status: 'pending', failure_class: null });
    expect(await decisionOf(settled.decisionId)).toEqual({
      decision_type: 'linkedin_scrape_profile',
      status: 'completed',
      failure_class: null,
    });
    expect(await decisionOf(chatDecision)).toEqual({ decision_type: 'PENDING', status: 'pending', failure_class: null });
  });

  it('finds them by a partial index of the pending rows, which the migration can take down and put back', async () => {
    const index = () => sql<{ indexdef: string }[]>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'decision_logs_pending'`);
    expect(await index()).toEqual([{ indexdef: expect.stringMatching(/\(created_at\) WHERE \(\(?status\)?::text = 'pending'::text\)/) }]);
    await undoMigrationsDownTo(db.database, 'DecisionPending1766620800000');
    expect(await index()).toEqual([]);
    await db.database.runMigrations();
    expect(await index()).toHaveLength(1);
  });
});
