import jwt from 'jsonwebtoken';
import request from 'supertest';
import { addTasks } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { TEST_JWT_SECRET, useTestApp } from '../support/test-app';
import { type Attempt, HOSTILE_INPUT, tasks } from '../support/bad-input';

const big = 'x'.repeat(70 * 1024);

/** Everything a new user might get wrong; none of it may be a 500 or change anything. */
const ATTEMPTS: Attempt[] = [
  { name: 'missing title', method: 'post', path: tasks, body: {}, status: 400, code: 'VALIDATION.FAILED', message: /title/ },
  {
    name: '5 000-char title',
    method: 'post',
    path: tasks,
    body: { title: 'x'.repeat(5000) },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title must be shorter than or equal to 200 characters/,
  },
  {
    name: 'blank title',
    method: 'post',
    path: tasks,
    body: { title: '   ' },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title must not be empty/,
  },
  {
    name: 'title of the wrong type',
    method: 'post',
    path: tasks,
    body: { title: 42 },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title must be a string/,
  },
  {
    name: 'unknown priority',
    method: 'post',
    path: tasks,
    body: { title: 'a', priority: 'urgent' },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /priority must be one of/,
  },
  {
    name: 'description too long',
    method: 'post',
    path: tasks,
    body: { title: 'a', description: 'd'.repeat(2001) },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /description/,
  },
  {
    name: 'extra field',
    method: 'post',
    path: tasks,
    body: { title: 'a', userId: 'someone' },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /userId: unknown field/,
  },
  { name: 'JSON array body', method: 'post', path: tasks, body: [{ title: 'a' }], status: 400, code: 'VALIDATION.FAILED', message: /./ },
  {
    name: 'malformed JSON',
    method: 'post',
    path: tasks,
    raw: { type: 'application/json', data: '{"title": "a",' },
    status: 400,
    code: 'HTTP.MALFORMED_JSON',
    message: /not valid JSON/,
  },
  {
    name: 'plain-text body',
    method: 'post',
    path: tasks,
    raw: { type: 'text/plain', data: 'buy milk' },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title/,
  },
  {
    name: 'body over 64 KB',
    method: 'post',
    path: tasks,
    body: { title: 'a', description: big },
    status: 413,
    code: 'HTTP.PAYLOAD_TOO_LARGE',
    message: /64 KB/,
  },
  {
    name: 'empty patch',
    method: 'patch',
    path: (me) => `${tasks(me)}/1`,
    body: {},
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /at least one of/,
  },
  {
    name: 'patch completed as a string',
    method: 'patch',
    path: (me) => `${tasks(me)}/1`,
    body: { completed: 'yes' },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /completed must be a boolean/,
  },
  {
    name: 'non-numeric task number',
    method: 'get',
    path: (me) => `${tasks(me)}/abc`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /number must be a whole number/,
  },
  {
    name: 'task number 0',
    method: 'delete',
    path: (me) => `${tasks(me)}/0`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /number must not be less than 1/,
  },
  {
    name: 'task number past integer range',
    method: 'get',
    path: (me) => `${tasks(me)}/99999999999`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /number must not be greater than/,
  },
  {
    name: 'fractional task number',
    method: 'get',
    path: (me) => `${tasks(me)}/1.5`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /number must be a whole number/,
  },
  {
    name: 'unknown status filter',
    method: 'get',
    path: (me) => `${tasks(me)}?status=done`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /status must be one of/,
  },
  {
    name: 'garbage user id',
    method: 'get',
    path: () => '/api/not-a-uuid/tasks',
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /userId must be a UUID/,
  },
  {
    name: 'another user id',
    method: 'post',
    path: (_, other) => tasks(other),
    body: { title: 'a' },
    status: 403,
    code: 'AUTH.FORBIDDEN',
    message: /own user/,
  },
  {
    name: 'no token',
    method: 'get',
    path: tasks,
    headers: () => ({ Authorization: '' }),
    status: 401,
    code: 'AUTH.UNAUTHENTICATED',
    message: /bearer token is required/,
  },
  {
    name: 'wrong scheme',
    method: 'get',
    path: tasks,
    headers: (me) => ({ Authorization: `Basic ${me.token}` }),
    status: 401,
    code: 'AUTH.UNAUTHENTICATED',
    message: /bearer token is required/,
  },
  {
    name: 'garbage token',
    method: 'get',
    path: tasks,
    headers: () => ({ Authorization: 'Bearer abc.def.ghi' }),
    status: 401,
    code: 'AUTH.UNAUTHENTICATED',
    message: /invalid or has expired/,
  },
  {
    name: 'forged token',
    method: 'get',
    path: tasks,
    headers: (me) => bearer(sign(me, 'a-different-secret-of-32-characters-long!')),
    status: 401,
    code: 'AUTH.UNAUTHENTICATED',
    message: /invalid or has expired/,
  },
  {
    name: 'expired token',
    method: 'get',
    path: tasks,
    headers: (me) => bearer(sign(me, TEST_JWT_SECRET, -60)),
    status: 401,
    code: 'AUTH.UNAUTHENTICATED',
    message: /invalid or has expired/,
  },
  {
    name: 'register without password',
    method: 'post',
    path: () => '/auth/register',
    body: { email: 'new@example.com' },
    headers: () => ({}),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /password/,
  },
  {
    name: 'register with short password',
    method: 'post',
    path: () => '/auth/register',
    body: { email: 'new@example.com', password: 'short' },
    headers: () => ({}),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /password must be longer than or equal to 8/,
  },
  {
    name: 'register with a non-email',
    method: 'post',
    path: () => '/auth/register',
    body: { email: 'nobody', password: 'long enough' },
    headers: () => ({}),
    status: 400,
    code: 'AUTH.INVALID_EMAIL',
    message: /email must be a valid email/,
  },
  {
    name: 'login with a number as email',
    method: 'post',
    path: () => '/auth/login',
    body: { email: 7, password: 'long enough' },
    headers: () => ({}),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /email must be a string/,
  },
  ...HOSTILE_INPUT,
  { name: 'unknown route', method: 'get', path: () => '/api/nothing-here', status: 404, code: 'HTTP.NOT_FOUND', message: /Cannot GET/ },
];

function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

function sign(user: SignedInUser, secret: string, expiresIn = 3600): string {
  return jwt.sign({ sub: user.userId, email: user.email, role: 'user' }, secret, { issuer: 'bridle', expiresIn });
}

describe('bad input', () => {
  const sut = useTestApp();
  const me = sut.user();
  const other = sut.user();

  beforeAll(async () => {
    await addTasks(sut.http, me, 'The only task');
  });

  it.each(ATTEMPTS.map((a) => [a.name, a] as const))('%s → a clear 4xx', async (_, attempt) => {
    let req = request(sut.http)
      [attempt.method](attempt.path(me, other))
      .set(attempt.headers?.(me) ?? me.auth);
    // serialize: as given, bytes and all (superagent would JSON-encode a Buffer).
    if (attempt.raw)
      req = req
        .set('Content-Type', attempt.raw.type)
        .serialize((data: unknown) => data as string)
        .send(attempt.raw.data);
    else if (attempt.body !== undefined) req = req.send(attempt.body as object);
    const res = await req;

    expect(res.status).toBe(attempt.status);
    expect(res.body).toEqual({
      statusCode: attempt.status,
      code: attempt.code,
      message: expect.stringMatching(attempt.message),
      correlationId: res.headers['x-request-id'],
    });
  });

  it('changed nothing: each user still has exactly what they had', async () => {
    const mine = await request(sut.http).get(tasks(me)).set(me.auth).expect(200);
    expect(mine.body).toEqual([expect.objectContaining({ number: 1, title: 'The only task', completed: false })]);
    const theirs = await request(sut.http).get(tasks(other)).set(other.auth).expect(200);
    expect(theirs.body).toEqual([]);
    await request(sut.http).post('/auth/login').send({ email: 'new@example.com', password: 'long enough' }).expect(401);
  });
});

describe('sign-in rate limit', () => {
  const sut = useTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });

  it('answers 429 with the error body once a client exceeds the limit', async () => {
    const attempt = () => request(sut.http).post('/auth/login').send({ email: 'x@example.com', password: 'guessing' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await attempt();
    expect(limited.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
  });
});
