import { randomUUID } from 'node:crypto';
import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import type { FinishedTurn } from '../../src/application/chat/ports/conversation-store.port';
import { TREATMENTS } from '../../src/domain/agent/failures';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { PostgresConversationStore } from '../../src/infrastructure/persistence/repositories/postgres-conversation-store';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { BROKEN_LINKS } from '../support/audit-chain';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';
import { addUser } from '../factories/users';
import { aFinishedTurn, aTurnStart } from '../factories/conversations';

/** What a chat turn's decision row and a failed tool call's audit row record, as the admin API reads them. */
describe(`what a turn records on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let store: PostgresConversationStore;
  let audit: PostgresAuditLog;
  let reader: PostgresAuditReader;
  let seal: SealAuditChainUseCase;
  let userId: string;

  beforeAll(async () => {
    store = new PostgresConversationStore(db.database);
    audit = new PostgresAuditLog(db.database, new AuditAppender(new RecordingMetrics()));
    reader = new PostgresAuditReader(db.database);
    seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(db.database));
    userId = (await addUser(db.database, { email: 'turn-record@example.com' })).id;
  });

  const start = (message: string, conversationId: string | null = null) => {
    const decisionId = randomUUID();
    return store
      .startTurn(aTurnStart(userId, { conversationId, message, decisionId, turnsPerMinute: 100 }))
      .then((turn) => ({ ...turn, decisionId }));
  };

  const finish = (
    conversationId: string,
    decisionId: string,
    decision: Pick<FinishedTurn['decision'], 'intentType' | 'outcomeCategory' | 'sampling'>,
  ) =>
    store.finishTurn(
      aFinishedTurn(
        { userId, conversationId, decisionId },
        { answer: "I couldn't find task 9.", decisionType: 'INVOKE_TOOL', iterations: 2, durationMs: 5, ...decision },
      ),
      new Date(),
    );

  const userMessageIds = async (conversationId: string) =>
    (
      await db.database.query<{ id: string }[]>(`SELECT id FROM messages WHERE conversation_id = $1 AND role = 'user' ORDER BY seq`, [
        conversationId,
      ])
    ).map((row) => row.id);

  it("names the person's message on the decision row from the start, and its intent, outcome and sampling once finished", async () => {
    const first = await start('add buy milk');
    const second = await start('complete task 9', first.conversationId);
    const [firstMessage, secondMessage] = await userMessageIds(first.conversationId);

    expect(await reader.getDecision(second.decisionId)).toMatchObject({
      messageId: secondMessage,
      intentType: 'PENDING',
      outcomeCategory: 'PENDING',
      temperature: null,
      maxTokens: null,
    });

    await finish(first.conversationId, second.decisionId, {
      intentType: 'COMPLETE',
      outcomeCategory: 'FAILED',
      sampling: { temperature: 0.7, maxTokens: 256 },
    });
    await finish(first.conversationId, first.decisionId, {
      intentType: 'CREATE',
      outcomeCategory: 'SUCCEEDED',
      sampling: { temperature: 0, maxTokens: 1024 },
    });
    const expected = {
      [first.decisionId]: { messageId: firstMessage, intentType: 'CREATE', outcomeCategory: 'SUCCEEDED', temperature: 0, maxTokens: 1024 },
      [second.decisionId]: {
        messageId: secondMessage,
        intentType: 'COMPLETE',
        outcomeCategory: 'FAILED',
        temperature: 0.7,
        maxTokens: 256,
      },
    };
    expect(await reader.getDecision(second.decisionId)).toMatchObject(expected[second.decisionId]);
    const listed = await reader.listDecisions({ conversationId: first.conversationId }, 10, null);
    expect(Object.fromEntries(listed.items.map((decision) => [decision.id, decision]))).toMatchObject(expected);
  });

  it("keeps a failed call's error message on its audit row, masked, and in the row the chain hashes", async () => {
    const entry = (tool: string, args: Record<string, unknown>): ToolAuditEntry => ({
      source: 'mcp',
      actorId: userId,
      tool,
      arguments: args,
      securityEvents: [],
    });
    const notFound = entry('complete_task', { number: 999 });
    const pendingSeq = await audit.recordPending(notFound);
    await audit.recordOutcome(pendingSeq, notFound, {
      status: 'failed',
      result: { number: 999 },
      errorCode: 'TASK_NOT_FOUND',
      errorMessage: TREATMENTS.NOT_FOUND.userSees,
      durationMs: 3,
    });
    await audit.record(entry('add_task', { title: 'x' }), {
      status: 'rejected',
      errorCode: 'INVALID_ARGUMENTS',
      errorMessage: 'That key sk-abcdefghijklmnop1234 is not a title.',
      durationMs: 0,
    });

    const rows = (await reader.list({ actorId: userId }, 10, null)).items;
    expect(rows.map((row) => [row.status, row.errorCode, row.errorMessage])).toEqual([
      ['rejected', 'INVALID_ARGUMENTS', 'That key [REDACTED] is not a title.'],
      ['failed', 'TASK_NOT_FOUND', TREATMENTS.NOT_FOUND.userSees],
      ['pending', null, null],
    ]);

    // Sealed, the chain holds with the messages in it; a row without one hashes as rows always have.
    await seal.run();
    expect(await db.database.query(BROKEN_LINKS)).toEqual([]);
    expect(await reader.verify()).toMatchObject({ verified: true, firstBadSeq: null });
    const canonical = await db.database.query<{ seq: string; text: string }[]>(
      `SELECT seq, audit_row_canonical(a) AS text FROM audit_log a WHERE actor_id = $1 ORDER BY seq`,
      [userId],
    );
    // Since migration 1768060800000 the message is committed to with the arguments and result (a
    // salted hash, `personal`), not held in the hashed text: erasable without breaking the chain.
    const hashed = canonical.map((row) => JSON.parse(row.text) as { errorMessage?: string; personal?: string });
    expect(hashed.map((row) => [row.errorMessage, /^[0-9a-f]{64}$/.test(row.personal ?? '')])).toEqual([
      [undefined, true],
      [undefined, true],
      [undefined, true],
    ]);
    const [edited] = await db.database.query<{ same: boolean }[]>(
      `SELECT audit_personal_commitment(a) = audit_personal_commitment(jsonb_populate_record(a, '{"error_message": "other"}')) AS same
       FROM audit_log a WHERE actor_id = $1 AND error_message IS NOT NULL LIMIT 1`,
      [userId],
    );
    expect(edited.same).toBe(false);
  });
});
