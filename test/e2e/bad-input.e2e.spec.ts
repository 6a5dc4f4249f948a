import jwt from 'jsonwebtoken';
import request from 'supertest';
import { addTasks } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { TEST_JWT_SECRET, useTestApp } from '../support/test-app';

interface Attempt {
  name: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: (me: SignedInUser, other: SignedInUser) => string;
  body?: unknown;
  raw?: { type: string; data: string | Buffer };
  headers?: (me: SignedInUser) => Record<string, string>;
  status: number;
  code: string;
  /** The message must say what was wrong, e.g. name the field. */
  message: RegExp;
}

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
  // One input boundary: hostile text, shapes and numbers are refused before any DTO work.
  {
    name: 'NUL byte in a title',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a\\u0000b"}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title contains a NUL character/,
  },
  {
    name: 'lone surrogate in a title',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a\\ud800b"}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title contains a lone surrogate/,
  },
  {
    name: 'invalid UTF-8 bytes',
    method: 'post',
    path: tasks,
    raw: {
      type: 'application/json',
      data: Buffer.from([0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    },
    status: 400,
    code: 'HTTP.MALFORMED_BODY',
    message: /not valid UTF-8/,
  },
  {
    name: '1 500 levels of nesting',
    method: 'post',
    path: tasks,
    raw: json(`{"title":"a","description":${'['.repeat(1500)}${']'.repeat(1500)}}`),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /description is nested deeper than 32 levels/,
  },
  {
    name: '__proto__ key',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a","__proto__":{"admin":true}}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /__proto__ is a reserved key, not allowed/,
  },
  {
    name: 'constructor key',
    method: 'post',
    path: tasks,
    raw: json('{"title":"a","constructor":{"prototype":{}}}'),
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /constructor is a reserved key, not allowed/,
  },
  {
    name: 'null title in a patch',
    method: 'patch',
    path: (me) => `${tasks(me)}/1`,
    body: { title: null },
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /title must be a string/,
  },
  ...['0x1', '0b1', '0o1', '1e0', '%201', '1%20', '+1', '01'].map((number): Attempt => ({
    name: `task number ${number}`,
    method: 'delete',
    path: (me) => `${tasks(me)}/${number}`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /number must be a whole number/,
  })),
  {
    name: 'page limit 0x10',
    method: 'get',
    path: (me) => `/api/${me.userId}/conversations?limit=0x10`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /limit must be a whole number/,
  },
  {
    name: 'query parameter given twice',
    method: 'get',
    path: (me) => `/api/${me.userId}/conversations?limit=1&limit=2`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /limit is given more than once/,
  },
  {
    name: 'NUL in a path parameter',
    method: 'get',
    path: (me) => `/api/${me.userId}/campaigns/a%00b`,
    status: 400,
    code: 'VALIDATION.FAILED',
    message: /campaignId contains a NUL character/,
  },
  ...forgedCursors()
    .map(([what, cursor]): Attempt[] => [
      {
        name: `conversations cursor: ${what}`,
        method: 'get',
        path: (me) => `/api/${me.userId}/conversations?cursor=${cursor}`,
        status: 400,
        code: 'VALIDATION.INVALID_CURSOR',
        message: /cursor/,
      },
      {
        name: `campaigns cursor: ${what}`,
        method: 'get',
        path: (me) => `/api/${me.userId}/campaigns?cursor=${cursor}`,
        status: 400,
        code: 'VALIDATION.INVALID_CURSOR',
        message: /cursor/,
      },
    ])
    .flat(),
  { name: 'unknown route', method: 'get', path: () => '/api/nothing-here', status: 404, code: 'HTTP.NOT_FOUND', message: /Cannot GET/ },
];

function json(data: string): { type: string; data: string } {
  return { type: 'application/json', data };
}

/** Cursors PostgreSQL would refuse although `Date.parse` takes their timestamps. */
function forgedCursors(): [string, string][] {
  const id = '00000000-0000-4000-8000-000000000000';
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return [
    ['a bare number as time', cursor(['1', id])],
    ['a day past the month', cursor(['2026-02-30 10:00:00+00', id])],
    ['year zero', cursor(['0000-01-01 00:00:00+00', id])],
    ['an English date', cursor(['March 7, 2026', id])],
  ];
}

function tasks(user: SignedInUser): string {
  return `/api/${user.userId}/tasks`;
}

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
