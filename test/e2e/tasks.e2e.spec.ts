import request from 'supertest';
import { addTasks } from '../factories/tasks';
import { signUpAndIn } from '../support/accounts';
import { useTestApp } from '../support/test-app';

describe('accounts and the task API', () => {
  const sut = useTestApp();

  it('answers /health with the database up and echoes X-Request-Id', async () => {
    const res = await request(sut.http).get('/health').set('X-Request-Id', 'probe-42').expect(200);
    expect(res.body).toEqual({ status: 'ok', database: 'up' });
    expect(res.headers['x-request-id']).toBe('probe-42');
  });

  it('registers, signs in and tells who the token belongs to', async () => {
    const reg = await request(sut.http).post('/auth/register').send({ email: 'Root@Example.com', password: 'correct horse' }).expect(201);
    expect(reg.body).toEqual({ id: expect.any(String), email: 'root@example.com', role: 'user' });
    expect(reg.headers['x-request-id']).toEqual(expect.any(String));

    const login = await request(sut.http).post('/auth/login').send({ email: 'root@example.com', password: 'correct horse' }).expect(200);
    expect(login.body).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 3600,
      userId: reg.body.id,
    });

    const me = await request(sut.http).get('/auth/me').set('Authorization', `Bearer ${login.body.accessToken}`);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      ...reg.body,
      chatBudget: { tokens: { dailyLimit: null, usedToday: 0 }, cost: { dailyLimit: null, usedToday: 0 }, month: null },
    });
  });

  it('refuses a duplicate email with 409 and wrong credentials with one vague 401', async () => {
    const email = 'dup@example.com';
    await request(sut.http).post('/auth/register').send({ email, password: 'correct horse' }).expect(201);
    const dup = await request(sut.http).post('/auth/register').send({ email: 'DUP@example.com', password: 'other pass' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ statusCode: 409, code: 'AUTH.EMAIL_TAKEN' });

    const wrongPassword = await request(sut.http).post('/auth/login').send({ email, password: 'wrong horse' });
    const unknownEmail = await request(sut.http).post('/auth/login').send({ email: 'ghost@example.com', password: 'correct horse' });
    for (const res of [wrongPassword, unknownEmail]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        statusCode: 401,
        code: 'AUTH.INVALID_CREDENTIALS',
        message: 'Invalid email or password',
        correlationId: res.headers['x-request-id'],
      });
    }
  });

  it('creates, lists, filters, reads, updates, completes and deletes tasks', async () => {
    const { userId, auth } = await signUpAndIn(sut.http);
    const base = `/api/${userId}/tasks`;

    const created = [];
    for (const body of [
      { title: '  Buy milk  ' },
      { title: 'Dentist', description: 'Tuesday 3 pm', priority: 'high' },
      { title: 'Call mum', priority: 'low' },
    ]) {
      const res = await request(sut.http).post(base).set(auth).send(body).expect(201);
      created.push(res.body);
    }
    expect(created.map((t) => [t.number, t.title, t.priority])).toEqual([
      [1, 'Buy milk', 'medium'],
      [2, 'Dentist', 'high'],
      [3, 'Call mum', 'low'],
    ]);
    expect(created[1]).toEqual({
      id: expect.any(String),
      number: 2,
      title: 'Dentist',
      description: 'Tuesday 3 pm',
      priority: 'high',
      completed: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: null,
    });

    const done = await request(sut.http).post(`${base}/1/complete`).set(auth).expect(200);
    expect(done.body).toMatchObject({ number: 1, completed: true, completedAt: expect.any(String) });

    const patched = await request(sut.http).patch(`${base}/2`).set(auth).send({ title: 'Dentist (moved)', description: null }).expect(200);
    expect(patched.body).toMatchObject({ title: 'Dentist (moved)', description: null, priority: 'high' });

    const titles = async (status: string) =>
      (await request(sut.http).get(`${base}?status=${status}`).set(auth).expect(200)).body.map((t: { title: string }) => t.title);
    expect(await titles('all')).toEqual(['Buy milk', 'Dentist (moved)', 'Call mum']);
    expect(await titles('pending')).toEqual(['Dentist (moved)', 'Call mum']);
    expect(await titles('completed')).toEqual(['Buy milk']);

    await request(sut.http).get(`${base}/3`).set(auth).expect(200);
    await request(sut.http).delete(`${base}/3`).set(auth).expect(204);
    const gone = await request(sut.http).get(`${base}/3`).set(auth).expect(404);
    expect(gone.body).toMatchObject({ statusCode: 404, code: 'TODO.TASK_NOT_FOUND', message: 'Task 3 was not found' });
    await request(sut.http).delete(`${base}/3`).set(auth).expect(404);
  });

  it("hides another user's tasks: same 404 as a missing one, and 403 on their path", async () => {
    const owner = await signUpAndIn(sut.http);
    const intruder = await signUpAndIn(sut.http);
    await addTasks(sut.http, owner, 'Secret');

    const foreignPath = await request(sut.http).get(`/api/${owner.userId}/tasks/1`).set(intruder.auth);
    expect(foreignPath.status).toBe(403);
    expect(foreignPath.body).toMatchObject({ code: 'AUTH.FORBIDDEN' });

    const ownPath = await request(sut.http).get(`/api/${intruder.userId}/tasks/1`).set(intruder.auth);
    expect(ownPath.status).toBe(404);
    expect(ownPath.body).toMatchObject({ code: 'TODO.TASK_NOT_FOUND' });
  });

  it('numbers 50 concurrent creations over HTTP 1..50', async () => {
    const { userId, auth } = await signUpAndIn(sut.http);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request(sut.http)
          .post(`/api/${userId}/tasks`)
          .set(auth)
          .send({ title: `Task ${i}` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = responses.map((r) => (r.body as { number: number }).number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});
