import request from 'supertest';
import { CONFIRMATION_TTL_MS } from '../../src/domain/agent/confirmation';
import { ShiftedClock } from '../fakes/fixed-clock';
import { useTestApp } from '../support/test-app';

describe('a deletion confirmed after it expired (offline model)', () => {
  const clock = new ShiftedClock();
  const sut = useTestApp({ clock });
  const user = sut.user();

  const chat = async (message: string, conversationId?: string) =>
    (await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200)).body as {
      conversationId: string;
      response: string;
      toolCalls: unknown[];
      decision: { type: string };
    };
  const openQuestion = async (conversationId: string) =>
    (
      (await request(sut.http).get(`/api/${user.userId}/conversations/${conversationId}/messages`).set(user.auth).expect(200)).body as {
        pendingConfirmation: { id: string } | null;
      }
    ).pendingConfirmation;
  const titles = async () =>
    ((await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200)).body as { title: string }[]).map(
      (task) => task.title,
    );

  it('says the request expired and deletes nothing; the expired question is closed, and asking again works', async () => {
    const { conversationId } = await chat('add buy milk');
    const asked = await chat('delete buy milk', conversationId);
    expect(asked.decision.type).toBe('REQUEST_CONFIRMATION');
    expect(await openQuestion(conversationId)).toMatchObject({ id: expect.any(String) });

    clock.advance(CONFIRMATION_TTL_MS + 1000);
    // Expired, the history offers no question for a client to draw, before anyone answers it.
    expect(await openQuestion(conversationId)).toBeNull();
    const late = await chat('yes delete', conversationId);
    expect(late.response).toBe(
      'That request expired: I wait 10 minutes for an answer, so nothing was changed. Ask me again if you still want it.',
    );
    expect(late.toolCalls).toEqual([]);
    expect(await titles()).toEqual(['Buy milk']);

    // Answered once: a second "yes" finds nothing waiting, rather than the same expired question.
    expect((await chat('yes delete', conversationId)).response).toBe("There's nothing waiting for your confirmation right now.");

    expect((await chat('delete buy milk', conversationId)).decision.type).toBe('REQUEST_CONFIRMATION');
    clock.advance(CONFIRMATION_TTL_MS - 60_000);
    await chat('yes delete', conversationId);
    expect(await titles()).toEqual([]);
  });
});
