import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

describe('conversations', () => {
  const sut = useTestApp();
  const ada = sut.user();
  const eve = sut.user();

  const chat = (user: SignedInUser, body: object) => request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send(body);

  it('keeps each conversation and pages through them, most recent first', async () => {
    const ids: string[] = [];
    for (const message of ['hello', 'add buy milk', "what's left?"]) {
      ids.push(((await chat(ada, { message }).expect(200)).body as { conversationId: string }).conversationId);
    }
    await chat(ada, { message: 'add bread', conversationId: ids[0] }).expect(200);

    const first = await request(sut.http).get(`/api/${ada.userId}/conversations?limit=2`).set(ada.auth).expect(200);
    expect(first.body.items.map((c: { id: string }) => c.id)).toEqual([ids[0], ids[2]]);
    expect(first.body.items[0]).toEqual({ id: ids[0], title: 'hello', createdAt: expect.any(String), updatedAt: expect.any(String) });
    const second = await request(sut.http)
      .get(`/api/${ada.userId}/conversations?limit=2&cursor=${first.body.nextCursor}`)
      .set(ada.auth)
      .expect(200);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: ids[1] })], nextCursor: null });

    const messages = await request(sut.http).get(`/api/${ada.userId}/conversations/${ids[0]}/messages`).set(ada.auth).expect(200);
    expect(messages.body.items.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', expect.stringMatching(/^Hi! /)],
      ['user', 'add bread'],
      ['assistant', "Got it! Added 'Bread' to your list. Anything else?"],
    ]);
    expect(messages.body.items[3]).toMatchObject({
      decisionType: 'INVOKE_TOOL',
      status: 'completed',
      toolCalls: [{ tool: 'add_task', arguments: { title: 'Bread' }, success: true, durationMs: expect.any(Number) }],
    });

    const older = await request(sut.http).get(`/api/${ada.userId}/conversations/${ids[0]}/messages?limit=3`).set(ada.auth).expect(200);
    expect(older.body.items).toHaveLength(3);
    const rest = await request(sut.http)
      .get(`/api/${ada.userId}/conversations/${ids[0]}/messages?limit=3&cursor=${older.body.nextCursor}`)
      .set(ada.auth)
      .expect(200);
    expect(rest.body).toEqual({ items: [expect.objectContaining({ content: 'hello' })], nextCursor: null, pendingConfirmation: null });
  });

  it("treats another user's conversation as missing, in chat and in history", async () => {
    const { conversationId } = (await chat(ada, { message: 'add secret plan' }).expect(200)).body as { conversationId: string };
    const hijack = await chat(eve, { message: 'what is on my list?', conversationId });
    expect(hijack.status).toBe(404);
    expect(hijack.body).toMatchObject({ code: 'CHAT.CONVERSATION_NOT_FOUND' });
    await request(sut.http).get(`/api/${eve.userId}/conversations/${conversationId}/messages`).set(eve.auth).expect(404);
    await request(sut.http).get(`/api/${ada.userId}/conversations/${randomUUID()}/messages`).set(ada.auth).expect(404);
    const adas = await request(sut.http).get(`/api/${ada.userId}/conversations/${conversationId}/messages`).set(ada.auth).expect(200);
    expect(adas.body.items).toHaveLength(2);
  });

  it.each([
    ['an empty message', { message: '' }, /message must be longer than or equal to 1/],
    ['a blank message', { message: '   ' }, /message must be 1 to 4000 characters long/],
    ['a 4001-character message', { message: 'x'.repeat(4001) }, /message must be shorter than or equal to 4000/],
    ['a number', { message: 5 }, /message must be a string/],
    ['a malformed conversation id', { message: 'hi', conversationId: 'abc' }, /conversationId must be a UUID/],
    ['an extra field', { message: 'hi', userId: 'someone' }, /userId: unknown field/],
  ])('rejects %s with 400 naming the field', async (_, body, message) => {
    const res = await chat(ada, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it.each([
    ['limit=0', /limit must not be less than 1/],
    ['limit=101', /limit must not be greater than 100/],
    ['cursor=garbage', /cursor is not one this API returned/],
    [`cursor=${Buffer.from('["x","y"]').toString('base64url')}`, /cursor is not one this API returned/],
  ])('rejects a conversation page with %s', async (query, message) => {
    const res = await request(sut.http).get(`/api/${ada.userId}/conversations?${query}`).set(ada.auth);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });
});

describe('chat rate limit', () => {
  const sut = useTestApp({ env: { CHAT_RATE_LIMIT_PER_MINUTE: '3' } });

  it('limits turns per user, not per address, with the error body', async () => {
    const [ann, ben] = [await signUpAndIn(sut.http), await signUpAndIn(sut.http)];
    const chat = (user: SignedInUser, path = 'chat') =>
      request(sut.http).post(`/api/${user.userId}/${path}`).set(user.auth).send({ message: 'hello' });
    const statuses = [];
    for (const path of ['chat', 'chat/stream', 'chat', 'chat']) statuses.push((await chat(ann, path)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await chat(ann);
    expect(limited.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
    await chat(ben).expect(200);
  });
});
