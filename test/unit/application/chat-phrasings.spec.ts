import { randomUUID } from 'node:crypto';
import { playScenario, type PhrasingDriver, SCENARIOS } from '../../support/chat-phrasings';
import { type OfflineChat, startOfflineChat } from '../../support/offline-chat';

/** No bearer guard in memory: the account counts as read. */
const account = { kind: 'checked-by-guard' } as const;

describe('the todo assistant understands people (offline model, chat core in memory)', () => {
  let sut: OfflineChat;

  beforeAll(async () => {
    sut = await startOfflineChat();
  });

  afterAll(async () => {
    await sut?.close();
  });

  /** Each scenario is a new person, as over HTTP: the people share the chat core, as they share a server. */
  const inMemory: PhrasingDriver<string> = {
    async personWith(tasks) {
      const userId = randomUUID();
      for (const { title, completed } of tasks) {
        const task = await sut.addTask.execute({ userId, title });
        if (completed) await sut.completeTask.execute({ userId, number: task.number });
      }
      return userId;
    },
    async send(userId, message, conversationId) {
      const reply = await sut.chat.execute({ userId, account, message, conversationId });
      return { conversationId: reply.conversationId, status: reply.status, response: reply.response, decisionType: reply.decision.type };
    },
    tasksOf: (userId) => sut.listTasks.execute({ userId, status: 'all' }),
  };

  it('covers at least 30 phrasings', () => {
    expect(Object.values(SCENARIOS).flatMap((s) => s.steps).length).toBeGreaterThanOrEqual(30);
  });

  it.each(Object.entries(SCENARIOS))('%s', (_, scenario) => playScenario(inMemory, scenario));
});
