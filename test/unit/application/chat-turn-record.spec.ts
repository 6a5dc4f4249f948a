import { randomUUID } from 'node:crypto';
import { SendChatMessageUseCase } from '../../../src/application/chat/send-chat-message.use-case';
import { InvalidSamplingError } from '../../../src/domain/agent/limits';
import { type OfflineChat, startOfflineChat } from '../../support/offline-chat';

/** No bearer guard in memory: the account counts as read. */
const account = { kind: 'checked-by-guard' } as const;

describe(`${SendChatMessageUseCase.name}: what a turn records`, () => {
  let sut: OfflineChat;

  beforeAll(async () => {
    sut = await startOfflineChat();
  });

  afterAll(async () => {
    await sut?.close();
  });

  /** Sends each message in one conversation; @returns each turn's [intent, outcome] as its decision row has them. */
  async function turns(messages: readonly string[], userId = randomUUID()): Promise<[string, string, boolean][]> {
    let conversationId: string | undefined;
    const recorded: [string, string, boolean][] = [];
    for (const message of messages) {
      const reply = await sut.chat.execute({ userId, account, message, conversationId });
      conversationId = reply.conversationId;
      const row = sut.conversations.decisions.find((decision) => decision.id === reply.decision.id);
      if (!row || !('intentType' in row)) throw new Error(`no finished decision row for "${message}"`);
      recorded.push([row.intentType, row.outcomeCategory, reply.success]);
    }
    return recorded;
  }

  it('says what the person wanted and how it ended, a "yes" counting as what it confirmed', async () => {
    expect(
      await turns([
        'hello',
        'add buy milk',
        "what's on my list?",
        'complete task 7',
        'delete task 1',
        'yes delete',
        'add a',
        'add b',
        'add c',
        'add d',
        'complete tasks 2 to 5',
        'yes',
        'add e',
        'delete task 6',
        'no',
      ]),
    ).toEqual([
      ['NONE', 'SUCCEEDED', true],
      ['CREATE', 'SUCCEEDED', true],
      ['READ', 'SUCCEEDED', true],
      ['COMPLETE', 'FAILED', true],
      ['DELETE', 'ASKED', true],
      ['DELETE', 'SUCCEEDED', true],
      ['CREATE', 'SUCCEEDED', true],
      ['CREATE', 'SUCCEEDED', true],
      ['CREATE', 'SUCCEEDED', true],
      ['CREATE', 'SUCCEEDED', true],
      ['BULK', 'ASKED', true],
      ['BULK', 'SUCCEEDED', true],
      ['CREATE', 'SUCCEEDED', true],
      ['DELETE', 'ASKED', true],
      ['NONE', 'SUCCEEDED', true],
    ]);
  });

  it("records the server's sampling, or the request's own, and refuses one out of bounds before anything is stored", async () => {
    const userId = randomUUID();
    const plain = await sut.chat.execute({ userId, account, message: 'hello' });
    const own = await sut.chat.execute({ userId, account, message: 'hello', temperature: 0.9, maxTokens: 50 });
    const sampling = (id: string) => sut.conversations.decisions.find((decision) => decision.id === id);
    expect(sampling(plain.decision.id)).toMatchObject({ sampling: { temperature: 0, maxTokens: 1024 } });
    expect(sampling(own.decision.id)).toMatchObject({ sampling: { temperature: 0.9, maxTokens: 50 } });

    const stored = sut.conversations.decisions.length;
    await expect(sut.chat.execute({ userId, account, message: 'hello', maxTokens: 2048 })).rejects.toThrow(InvalidSamplingError);
    await expect(sut.chat.execute({ userId, account, message: 'hello', temperature: 3 })).rejects.toMatchObject({ field: 'temperature' });
    expect(sut.conversations.decisions).toHaveLength(stored);
  });
});
