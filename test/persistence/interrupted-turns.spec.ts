import { randomUUID } from 'node:crypto';
import type { ToolAuditEntry } from '../../src/application/audit/ports/audit-log.port';
import { settleFromEvidence } from '../../src/application/todo/tools/tool-call-evidence';
import { INTERRUPTED_ANSWER } from '../../src/domain/chat/conversation';
import { TASKS_PER_USER_MAX, draftTask } from '../../src/domain/todo/task';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { PostgresConversationStore } from '../../src/infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresInterruptedTurnStore } from '../../src/infrastructure/persistence/repositories/postgres-interrupted-turn-store';
import { PostgresTaskRepository } from '../../src/infrastructure/persistence/repositories/postgres-task.repository';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { useOpenDatabase } from '../support/persistence';
import { addUser } from '../factories/users';
import { aFinishedTurn, aTurnStart } from '../factories/conversations';

describe(`interrupted chat turns on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let conversations: PostgresConversationStore;
  let tasks: PostgresTaskRepository;
  let audit: PostgresAuditLog;
  let sut: PostgresInterruptedTurnStore;
  let userId: string;
  const hourAgo = () => new Date(Date.now() - 3_600_000);
  const later = () => new Date(Date.now() + 60_000);

  beforeAll(async () => {
    const appender = new AuditAppender(new RecordingMetrics());
    conversations = new PostgresConversationStore(db.database);
    tasks = new PostgresTaskRepository(db.database);
    audit = new PostgresAuditLog(db.database, appender);
    sut = new PostgresInterruptedTurnStore(db.database, appender);
    userId = (await addUser(db.database, { email: 'interrupted@example.com' })).id;
  });

  const start = (message: string, conversationId: string | null, now = new Date(), decisionId = randomUUID()) =>
    conversations.startTurn(aTurnStart(userId, { conversationId, message, decisionId, now })).then((turn) => ({ ...turn, decisionId }));

  const finish = (conversationId: string, decisionId: string, content: string) =>
    conversations.finishTurn(aFinishedTurn({ userId, conversationId, decisionId }, { answer: content }), new Date());

  const messages = async (conversationId: string) =>
    (await conversations.listMessages(userId, conversationId, 100, null))!.items.map((m) => [m.role, m.content, m.status]);

  const decisionOf = async (id: string) =>
    (
      await db.database.query<
        { decision_type: string; status: string; provider: string; model: string; intent_type: string; outcome_category: string }[]
      >(`SELECT decision_type, status, provider, model, intent_type, outcome_category FROM decision_logs WHERE id = $1`, [id])
    )[0];

  const chatCall = (decisionId: string, tool: string, args: Record<string, unknown>): ToolAuditEntry => ({
    source: 'chat',
    actorId: userId,
    conversationId: randomUUID(),
    decisionId,
    tool,
    arguments: args,
    securityEvents: [],
  });

  const outcomesOf = async (pendingSeq: number) =>
    db.database.query<{ status: string; result: Record<string, unknown> | null; error_code: string | null }[]>(
      `SELECT status, result, error_code FROM audit_log WHERE pending_seq = $1`,
      [pendingSeq],
    );

  it('keeps each answer in its place after its question, shows none in progress, and fills it in on finish', async () => {
    const first = await start('first', null);
    const { conversationId } = first;
    // A second turn of the conversation starts before the first has answered.
    const second = await start('second', conversationId);
    // The decision is there from the start, pending, with who will answer.
    expect(await decisionOf(first.decisionId)).toEqual({
      decision_type: 'PENDING',
      status: 'pending',
      provider: 'offline',
      model: 'test',
      intent_type: 'PENDING',
      outcome_category: 'PENDING',
    });
    expect(second.history).toEqual([expect.objectContaining({ role: 'user', content: 'first' })]);
    expect(await messages(conversationId)).toEqual([
      ['user', 'first', null],
      ['user', 'second', null],
    ]);

    await finish(conversationId, second.decisionId, 'answer to second');
    await finish(conversationId, first.decisionId, 'answer to first');
    expect(await decisionOf(first.decisionId)).toEqual({
      decision_type: 'RESPOND_ONLY',
      status: 'completed',
      provider: 'offline',
      model: 'offline',
      intent_type: 'NONE',
      outcome_category: 'SUCCEEDED',
    });
    expect(await messages(conversationId)).toEqual([
      ['user', 'first', null],
      ['assistant', 'answer to first', 'completed'],
      ['user', 'second', null],
      ['assistant', 'answer to second', 'completed'],
    ]);
    const third = await start('third', conversationId);
    expect(third.history.map((m) => m.content)).toEqual(['first', 'answer to first', 'second', 'answer to second']);
    await finish(conversationId, third.decisionId, 'answer to third');
  });

  it('answers a turn that never finished once it is past the deadline, in its place, exactly once among racing sweepers', async () => {
    const cut = await start('add cut off', null, hourAgo());
    const { conversationId } = cut;
    const after = await start('what is left?', conversationId, hourAgo());
    await finish(conversationId, after.decisionId, 'Nothing.');
    const young = await start('still running', conversationId, new Date());

    const counts = await Promise.all(
      [0, 1, 2].map(() =>
        sut.answerInterruptedTurns({
          startedBefore: new Date(Date.now() - 60_000),
          content: INTERRUPTED_ANSWER,
          now: new Date(),
          limit: 50,
        }),
      ),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await messages(conversationId)).toEqual([
      ['user', 'add cut off', null],
      ['assistant', INTERRUPTED_ANSWER, 'interrupted'],
      ['user', 'what is left?', null],
      ['assistant', 'Nothing.', 'completed'],
      ['user', 'still running', null],
    ]);
    expect(await decisionOf(cut.decisionId)).toMatchObject({
      decision_type: 'RESPOND_ONLY',
      status: 'interrupted',
      intent_type: 'UNKNOWN',
      outcome_category: 'INTERRUPTED',
    });
    expect(await decisionOf(young.decisionId)).toMatchObject({ status: 'pending' });
    await finish(conversationId, young.decisionId, 'done');
  });

  it('answers a turn only once none of its tool calls is left pending', async () => {
    const turn = await start('add milk', null, hourAgo());
    const seq = await audit.recordPending(chatCall(turn.decisionId, 'add_task', { title: 'Milk' }));
    const answer = () => sut.answerInterruptedTurns({ startedBefore: later(), content: INTERRUPTED_ANSWER, now: new Date(), limit: 50 });

    expect(await answer()).toBe(0);
    const [call] = (await sut.unsettledToolCalls({ startedBefore: later(), afterSeq: seq - 1, limit: 10 })).filter(
      (c) => c.pendingSeq === seq,
    );
    await sut.settleToolCall(call, (evidence) => settleFromEvidence({ ...call.entry, startedAt: call.startedAt }, evidence, 10_000));
    expect(await answer()).toBe(1);
    expect((await messages(turn.conversationId)).at(-1)).toEqual(['assistant', INTERRUPTED_ANSWER, 'interrupted']);
  });

  it('lists chat and MCP calls left pending past the cut-off, and none that is settled, younger or from elsewhere', async () => {
    const decisionId = randomUUID();
    const left = await audit.recordPending(chatCall(decisionId, 'complete_task', { number: 1 }));
    const viaMcp = await audit.recordPending({ ...chatCall(decisionId, 'add_task', { title: 'x' }), source: 'mcp' });
    const settled = await audit.recordPending(chatCall(decisionId, 'add_task', { title: 'y' }));
    await audit.recordOutcome(settled, chatCall(decisionId, 'add_task', { title: 'y' }), { status: 'succeeded', durationMs: 3 });
    const outreach = await audit.recordPending({ ...chatCall(decisionId, 'send_email', {}), source: 'outreach' });

    const listed = await sut.unsettledToolCalls({ startedBefore: later(), afterSeq: left - 1, limit: 10 });
    expect(listed.map((call) => call.pendingSeq)).toEqual([left, viaMcp]);
    expect(listed[0]).toMatchObject({
      startedAt: expect.any(Date),
      entry: { source: 'chat', actorId: userId, decisionId, tool: 'complete_task', arguments: { number: 1 }, securityEvents: [] },
    });
    expect(listed.map((c) => c.pendingSeq)).not.toContain(outreach);
    expect(await sut.unsettledToolCalls({ startedBefore: hourAgo(), afterSeq: left - 1, limit: 10 })).toEqual([]);
    expect(await sut.unsettledToolCalls({ startedBefore: later(), afterSeq: left, limit: 1 })).toEqual([
      expect.objectContaining({ pendingSeq: viaMcp }),
    ]);
    for (const call of listed)
      await sut.settleToolCall(call, () => ({
        status: 'unknown',
        errorCode: 'UNKNOWN_OUTCOME',
        errorMessage: 'Unknown.',
        result: { detail: 'test', review: true },
      }));
  });

  it('settles a crashed add by the task it made, a second identical one as unknown, each once among racing sweepers', async () => {
    const decisionId = randomUUID();
    const entry = chatCall(decisionId, 'add_task', { title: 'Buy oat milk' });
    const firstSeq = await audit.recordPending(entry);
    await tasks.add(userId, draftTask({ title: 'Buy oat milk' }), new Date(), TASKS_PER_USER_MAX);
    const secondSeq = await audit.recordPending(entry);

    const calls = (await sut.unsettledToolCalls({ startedBefore: later(), afterSeq: firstSeq - 1, limit: 10 })).filter((c) =>
      [firstSeq, secondSeq].includes(c.pendingSeq),
    );
    expect(calls).toHaveLength(2);
    const racers = [sut, new PostgresInterruptedTurnStore(db.database, new AuditAppender(new RecordingMetrics()))];
    const settled = await Promise.all(
      racers.flatMap((store) =>
        calls.map((call) =>
          store.settleToolCall(call, (evidence) => settleFromEvidence({ ...call.entry, startedAt: call.startedAt }, evidence, 10_000)),
        ),
      ),
    );
    expect(settled.filter((outcome) => outcome !== null)).toHaveLength(2);

    const [first] = await outcomesOf(firstSeq);
    expect(await outcomesOf(firstSeq)).toHaveLength(1);
    expect(first).toMatchObject({ status: 'succeeded', result: { task: { title: 'Buy oat milk' }, settledAfterCrash: true } });
    expect(await outcomesOf(secondSeq)).toEqual([
      {
        status: 'unknown',
        error_code: 'UNKNOWN_OUTCOME',
        result: { detail: 'no task that this call could have added is there', review: true },
      },
    ]);
    expect(await sut.unsettledToolCalls({ startedBefore: later(), afterSeq: firstSeq - 1, limit: 10 })).toEqual([]);
    await expect(new PostgresAuditReader(db.database).verify()).resolves.toMatchObject({ verified: true, firstBadSeq: null });
  });

  it('settles complete and delete by number from the tasks as they are', async () => {
    const kept = await tasks.add(userId, draftTask({ title: 'Call mum' }), hourAgo(), TASKS_PER_USER_MAX);
    const gone = await tasks.add(userId, draftTask({ title: 'Old chore' }), hourAgo(), TASKS_PER_USER_MAX);
    const decisionId = randomUUID();
    const complete = await audit.recordPending(chatCall(decisionId, 'complete_task', { number: kept!.number }));
    await tasks.replace(kept!, { ...kept!, completed: true, completedAt: new Date(), updatedAt: new Date() });
    const remove = await audit.recordPending(chatCall(decisionId, 'delete_task', { numbers: [gone!.number] }));
    await tasks.remove(userId, gone!.number);

    const calls = (await sut.unsettledToolCalls({ startedBefore: later(), afterSeq: complete - 1, limit: 10 })).filter((c) =>
      [complete, remove].includes(c.pendingSeq),
    );
    for (const call of calls) {
      await sut.settleToolCall(call, (evidence) => settleFromEvidence({ ...call.entry, startedAt: call.startedAt }, evidence, 10_000));
    }
    expect(await outcomesOf(complete)).toEqual([
      expect.objectContaining({
        status: 'succeeded',
        result: expect.objectContaining({ alreadyCompleted: false, task: expect.objectContaining({ completed: true }) }),
      }),
    ]);
    expect(await outcomesOf(remove)).toEqual([
      expect.objectContaining({ status: 'succeeded', result: expect.objectContaining({ deletedNumbers: [gone!.number] }) }),
    ]);
  });
});
