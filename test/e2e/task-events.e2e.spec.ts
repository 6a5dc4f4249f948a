import request from 'supertest';
import { GracefulShutdown } from '../../src/interfaces/http/graceful-shutdown';
import { chatTurn } from '../factories/conversations';
import { addTasks } from '../factories/tasks';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { openTaskEvents, type TaskEventStream } from '../support/task-events';
import { useTestApp } from '../support/test-app';

const changed = (stream: TaskEventStream) => stream.events.filter((event) => event.event === 'tasks-changed').length;

describe('GET /api/:userId/tasks/events', () => {
  const sut = useTestApp();
  const alice = sut.user();
  const bob = sut.user();
  const open: TaskEventStream[] = [];

  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  async function listen(user: SignedInUser, headers: Record<string, string> = user.auth, path = `/api/${user.userId}/tasks/events`) {
    const stream = await openTaskEvents(sut.http, path, headers);
    open.push(stream);
    return stream;
  }

  const addTask = (user: SignedInUser, title: string) => addTasks(sut.http, user, title);

  it('opens an event stream a proxy passes through, with a retry hint first', async () => {
    const stream = await listen(alice);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toMatch(/no-cache/);
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    await stream.until('the retry hint', (s) => s.retry !== null);
    expect(stream.retry).toBe(2000);
    expect(stream.events).toEqual([]);
  });

  it('sends tasks-changed for a change through the REST API and for one through a chat turn', async () => {
    const stream = await listen(alice);

    const [task] = await addTask(alice, 'Buy milk');
    await stream.until('an event for the add', (s) => changed(s) === 1);
    expect(stream.events[0]).toEqual({ event: 'tasks-changed', data: '{}', id: undefined });

    await request(sut.http).post(`/api/${alice.userId}/tasks/${task.number}/complete`).set(alice.auth).expect(200);
    await stream.until('an event for the completion', (s) => changed(s) === 2);

    const turn = await chatTurn(sut.http, alice, 'add call mum');
    expect(turn.toolCalls).toEqual([expect.objectContaining({ tool: 'add_task', success: true })]);
    await stream.until('an event for the chat turn', (s) => changed(s) === 3);
  });

  it("gives no event for another person's change", async () => {
    const alices = await listen(alice);
    const bobs = await listen(bob);

    await addTask(bob, "Bob's task");
    await bobs.until("Bob's event", (s) => changed(s) === 1);
    // Changes are delivered in commit order: had Bob's reached Alice, it would come before her own.
    await addTask(alice, "Alice's task");
    await alices.until("Alice's event", (s) => changed(s) >= 1);
    expect(changed(alices)).toBe(1);
    expect(changed(bobs)).toBe(1);
  });

  it('keeps at most 5 streams a person: the sixth supersedes the oldest, the others stay', async () => {
    const streams: TaskEventStream[] = [];
    for (let i = 0; i < 5; i++) streams.push(await listen(alice));
    const bobs = await listen(bob);
    const sixth = await listen(alice);
    expect(sixth.status).toBe(200);

    const [oldest, ...kept] = streams;
    await oldest.until('the oldest to be superseded and ended', (s) => s.ended);
    expect(oldest.events).toEqual([{ event: 'superseded', data: '{"limit":5}', id: undefined }]);

    await addTask(alice, 'Seen by the five');
    for (const stream of [...kept, sixth]) await stream.until('the event on a kept stream', (s) => changed(s) === 1);
    expect(kept.map((stream) => stream.ended)).toEqual([false, false, false, false]);
    expect(bobs.ended).toBe(false);
    expect(changed(oldest)).toBe(0);
  });

  it('refuses a caller without a token, another person, and a token without tasks:read', async () => {
    const anonymous = await listen(alice, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.refusal).toMatchObject({ statusCode: 401, code: 'AUTH.UNAUTHENTICATED' });

    const intruder = await listen(bob, bob.auth, `/api/${alice.userId}/tasks/events`);
    expect(intruder.status).toBe(403);
    expect(intruder.refusal).toMatchObject({ statusCode: 403, code: 'AUTH.FORBIDDEN' });

    const minted = await request(sut.http)
      .post(`/api/${alice.userId}/tokens`)
      .set(alice.auth)
      .send({ name: 'Chat only', scopes: ['chat'] })
      .expect(201);
    const chatOnly = await listen(alice, { Authorization: `Bearer ${minted.body.token}` });
    expect(chatOnly.status).toBe(403);

    const reader = await request(sut.http)
      .post(`/api/${alice.userId}/tokens`)
      .set(alice.auth)
      .send({ name: 'Reader', scopes: ['tasks:read'] })
      .expect(201);
    const script = await listen(alice, { Authorization: `Bearer ${reader.body.token}` });
    expect(script.status).toBe(200);
    await addTask(alice, 'For the script');
    await script.until('the event on a token with tasks:read', (s) => changed(s) === 1);
  });
});

describe('task event streams at shutdown', () => {
  const sut = useTestApp();

  it('are ended by the drain with a retry hint and the shutdown event', async () => {
    const user = await signUpAndIn(sut.http);
    const shutdown = new GracefulShutdown(sut.app.getHttpServer());
    shutdown.track();
    const stream = await openTaskEvents(sut.http, `/api/${user.userId}/tasks/events`, user.auth);
    await stream.until('the first retry hint', (s) => s.retry === 2000);

    await shutdown.drain(30_000);
    await stream.until('the end of the stream', (s) => s.ended);
    expect(stream.events).toEqual([{ event: 'shutdown', data: '{"reason":"server shutting down"}', id: undefined }]);
    expect(stream.retry).toBe(1000);
  });
});
