import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CONFIRMATION_TTL_MS } from '../../src/domain/agent/confirmation';
import { ShiftedClock } from '../fakes/fixed-clock';
import { addTasks } from '../factories/tasks';
import { useTestApp } from '../support/test-app';
import { WORDS_OF_A_NO } from '../support/words-of-a-no';

const EXPIRED_REPLY = 'That request expired unanswered after 10 minutes, so nothing was changed. Ask me again if you still want it.';

/** A question nobody answered in time expired: it is said and recorded as expired, never as a no (offline model). */
describe('a deletion confirmed after it expired (offline model)', () => {
  const clock = new ShiftedClock();
  let client: Client | undefined;
  const sut = useTestApp({ clock, beforeClose: () => client?.close() });
  const user = sut.user();
  const stranger = sut.user();

  const chat = async (message: string, conversationId?: string) =>
    (await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200)).body as {
      conversationId: string;
      response: string;
      toolCalls: unknown[];
      decision: { id: string; type: string };
      pendingConfirmation: { id: string } | null;
    };
  const openQuestion = async (conversationId: string) =>
    (
      (await request(sut.http).get(`/api/${user.userId}/conversations/${conversationId}/messages`).set(user.auth).expect(200)).body as {
        pendingConfirmation: { id: string } | null;
      }
    ).pendingConfirmation;
  const question = (conversationId: string, confirmationId: string, who = user) =>
    request(sut.http).get(`/api/${who.userId}/conversations/${conversationId}/confirmations/${confirmationId}`).set(who.auth);
  const titles = async () =>
    ((await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200)).body as { title: string }[]).map(
      (task) => task.title,
    );
  const outcomeOf = async (decisionId: string) =>
    (
      await sut.app
        .get(DataSource)
        .query<{ outcome_category: string }[]>(`SELECT outcome_category FROM decision_logs WHERE id = $1`, [decisionId])
    )[0].outcome_category;

  it('says the request expired and deletes nothing; the expired question is closed, and asking again works', async () => {
    const { conversationId } = await chat('add buy milk');
    const asked = await chat('delete buy milk', conversationId);
    expect(asked.decision.type).toBe('REQUEST_CONFIRMATION');
    const confirmationId = asked.pendingConfirmation!.id;
    expect(await openQuestion(conversationId)).toMatchObject({ id: confirmationId });
    expect((await question(conversationId, confirmationId).expect(200)).body).toMatchObject({ state: 'open' });

    clock.advance(CONFIRMATION_TTL_MS + 1000);
    // Expired, the history offers no question for a client to draw, before anyone answers it; its link says it expired.
    expect(await openQuestion(conversationId)).toBeNull();
    const expired = {
      id: confirmationId,
      state: 'expired',
      message: 'The question expired unanswered after 10 minutes, so nothing was deleted.',
    };
    expect((await question(conversationId, confirmationId).expect(200)).body).toMatchObject(expired);
    const late = await chat('yes delete', conversationId);
    expect(late.response).toBe(EXPIRED_REPLY);
    expect(late.toolCalls).toEqual([]);
    expect(await titles()).toEqual(['Buy milk']);
    // Recorded as what it was: the question expired, nobody refused it.
    expect(await outcomeOf(late.decision.id)).toBe('EXPIRED');
    // Closed by that answer, it still reads as expired.
    expect((await question(conversationId, confirmationId).expect(200)).body).toMatchObject(expired);
    expect(`${late.response} ${expired.message}`).not.toMatch(WORDS_OF_A_NO);

    // Answered once: a second "yes" finds nothing waiting, rather than the same expired question.
    expect((await chat('yes delete', conversationId)).response).toBe("There's nothing waiting for your confirmation right now.");

    const again = await chat('delete buy milk', conversationId);
    expect(again.decision.type).toBe('REQUEST_CONFIRMATION');
    clock.advance(CONFIRMATION_TTL_MS - 60_000);
    await chat('yes delete', conversationId);
    expect(await titles()).toEqual([]);
    expect((await question(conversationId, again.pendingConfirmation!.id).expect(200)).body).toMatchObject({
      state: 'confirmed',
      message: 'You said yes.',
    });
  });

  it('says a question waiting in the console for an MCP client that cannot ask expired unanswered when nobody answers it', async () => {
    await addTasks(sut.http, user, 'Dentist');
    client = new Client({ name: 'no-forms', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: user.auth } }));
    const refused = await client.callTool({ name: 'delete_task', arguments: { query: 'dentist' } });
    const { conversationId, confirmationId } = (
      refused.structuredContent as { details: { conversationId: string; confirmationId: string } }
    ).details;

    clock.advance(CONFIRMATION_TTL_MS + 1000);
    const state = (await question(conversationId, confirmationId).expect(200)).body as { state: string; message: string };
    expect(state).toMatchObject({ state: 'expired', message: 'The question expired unanswered after 10 minutes, so nothing was deleted.' });
    const late = await chat('yes delete', conversationId);
    expect(late.response).toBe(EXPIRED_REPLY);
    expect(await titles()).toEqual(['Dentist']);
    expect(`${state.message} ${late.response}`).not.toMatch(WORDS_OF_A_NO);
  });

  it("reads only the user's own question, by its id", async () => {
    const asked = await chat('delete dentist');
    const confirmationId = asked.pendingConfirmation!.id;
    await question(asked.conversationId, confirmationId, stranger).expect(404);
    const unknown = await question(asked.conversationId, '00000000-0000-4000-8000-000000000000').expect(404);
    expect(unknown.body).toMatchObject({ code: 'CHAT.CONFIRMATION_NOT_FOUND' });
    const hostile = await question(asked.conversationId, `${'x'.repeat(300)}`).expect(400);
    expect(hostile.body).toMatchObject({ code: 'VALIDATION.FAILED', message: expect.stringContaining('confirmationId must be a UUID') });
  });
});
