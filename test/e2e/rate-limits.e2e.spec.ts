import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { GUARDS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { BearerAuthGuard } from '../../src/interfaces/http/guards/bearer-auth.guard';
import { RateLimitGuard, rateLimitsOf } from '../../src/interfaces/http/shared/rate-limit';
import { signUpAndIn, type SignedInUser, uniqueEmail } from '../support/accounts';
import { buildService, callService, removeBuild, ROOT, type RunningService, startService } from '../support/built-service';
import { TEST_JWT_SECRET, type TestApp, useTestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase, usingPostgresServer, testDataRoot } from '../support/test-database';

const PASSWORD = 'correct horse battery';
const MAIN = (dir: string) => join(dir, 'main.js');

/** Sign-in guesses from `addresses` client addresses (as a trusted proxy names them), `each` from every one. */
async function guess(sut: TestApp, email: string, addresses: number, each: number): Promise<number[]> {
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: addresses }, async (_, a) => {
      for (let i = 0; i < each; i++) {
        const res = await request(sut.http)
          .post('/auth/login')
          .set('X-Forwarded-For', `203.0.113.${a + 1}`)
          .send({ email, password: `guess-${a}-${i}` });
        statuses.push(res.status);
      }
    }),
  );
  return statuses;
}

describe('sign-in limits per account, across addresses', () => {
  const sut = useTestApp({
    env: {
      TRUST_PROXY: 'loopback',
      AUTH_RATE_LIMIT_PER_MINUTE: '20',
      SIGN_IN_ATTEMPTS_PER_ACCOUNT: '5',
    },
  });

  it('lets 5 addresses × 30 guesses in a minute get no further than the account limit', async () => {
    const victim = await signUpAndIn(sut.http);
    const statuses = await guess(sut, victim.email, 5, 30);
    const checked = statuses.filter((status) => status === 401);
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(150 - checked.length);

    // The right password during the block gets the same 429: guessing right tells nothing.
    const blocked = await request(sut.http)
      .post('/auth/login')
      .set('X-Forwarded-For', '198.51.100.7')
      .send({ email: victim.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
    expect(Number(blocked.headers['retry-after-sign-in'])).toBeGreaterThan(60);
  });

  it('counts an account however its email is written', async () => {
    const email = uniqueEmail();
    const spellings = [email, email.toUpperCase(), ` ${email} `];
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (
          await request(sut.http)
            .post('/auth/login')
            .send({ email: spellings[i % 3], password: 'wrong guess' })
        ).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('counts attempts to change the password with the sign-in attempts of that account', async () => {
    const victim = await signUpAndIn(sut.http);
    const attempt = () =>
      request(sut.http).post('/auth/password').set(victim.auth).send({ currentPassword: 'wrong guess', newPassword: 'whatever else' });
    const statuses: number[] = [];
    // Signing in was the account's first attempt of the window; 4 more reach the limit of 5.
    for (let i = 0; i < 5; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    // One count for both routes: signing in, even with the right password, is blocked too.
    const login = await request(sut.http).post('/auth/login').send({ email: victim.email, password: PASSWORD });
    expect({ status: login.status, code: login.body.code }).toEqual({ status: 429, code: 'HTTP.RATE_LIMITED' });
    expect(Number(login.headers['retry-after-sign-in'])).toBeGreaterThan(60);
  });

  it('leaves other accounts alone', async () => {
    const other = await signUpAndIn(sut.http);
    expect(other.token).toEqual(expect.any(String));
  });
});

describe('without TRUST_PROXY', () => {
  const sut = useTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });

  it('ignores X-Forwarded-For: made-up addresses are one client, the socket', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await request(sut.http)
        .post('/auth/register')
        .set('X-Forwarded-For', `192.0.2.${i + 1}`)
        .send({ email: 'bad' });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});

describe('POST /mcp is limited per user', () => {
  const sut = useTestApp({ env: { MCP_RATE_LIMIT_PER_MINUTE: '3' } });

  it('answers 429 past the limit, for that user only', async () => {
    const [alice, bob] = [await signUpAndIn(sut.http), await signUpAndIn(sut.http)];
    const list = (user: SignedInUser) =>
      request(sut.http)
        .post('/mcp')
        .set(user.auth)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await list(alice)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await list(bob)).status).toBe(200);
  });
});

/** Every route a bearer token opens, as the app mounts it: its name and its guards in the order they run. */
function bearerRoutes(sut: TestApp): { name: string; guards: unknown[]; limits: readonly string[] }[] {
  const routes = [];
  for (const module of sut.app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      const controller = metatype as unknown as { name: string; prototype: Record<string, unknown> };
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[key];
        if (key === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const guards = [
          ...((Reflect.getMetadata(GUARDS_METADATA, controller) as unknown[] | undefined) ?? []),
          ...((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? []),
        ];
        if (!guards.includes(BearerAuthGuard)) continue;
        routes.push({ name: `${controller.name}.${key}`, guards, limits: rateLimitsOf(handler, controller) });
      }
    }
  }
  return routes;
}

describe('per-person limits on every route a token opens', () => {
  const sut = useTestApp({ env: { API_RATE_LIMIT_PER_MINUTE: '50' } });
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  const bob = sut.user();

  it("has every route behind BearerAuthGuard take a per-person limit (api, mcp, or a chat turn's own), counted after the token is checked", () => {
    const routes = bearerRoutes(sut);
    expect(routes.length).toBeGreaterThan(40);
    const perPerson = ['api', 'mcp', 'chat-turn'];
    const unlimited = routes.filter((route) => !route.limits.some((limit) => perPerson.includes(limit))).map((route) => route.name);
    expect(unlimited).toEqual([]);
    const countedFirst = routes
      .filter((route) => route.guards.indexOf(RateLimitGuard) < route.guards.indexOf(BearerAuthGuard))
      .map((route) => route.name);
    expect(countedFirst).toEqual([]);
  });

  it('counts 200 refused task requests sent at once: 50 reach the policy (and the audit log), 150 get 429 with Retry-After', async () => {
    const rules = [
      {
        name: 'no-api-deletes',
        tools: ['delete_task'],
        sources: ['api'],
        people: [ada.email],
        effect: 'deny',
        reason: 'Not over the API.',
      },
    ];
    await request(sut.http).put('/admin/policy').set(admin.auth).send({ rules, reason: 'API deletes refused' }).expect(200);

    const answers = await Promise.all(
      Array.from({ length: 200 }, () => request(sut.http).delete(`/api/${ada.userId}/tasks/1`).set(ada.auth)),
    );
    const denied = answers.filter((answer) => answer.status === 403);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(denied).toHaveLength(50);
    expect(denied.every((answer) => (answer.body as { code: string }).code === 'POLICY.DENIED')).toBe(true);
    expect(refused).toHaveLength(150);
    for (const answer of refused) {
      expect(answer.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
      const retryAfter = Number(answer.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(answer.headers['retry-after-api']).toBe(answer.headers['retry-after']);
    }
    // Counted before the handler: only the 50 that reached the policy are audit rows.
    const [{ count }] = await sut.app
      .get(DataSource)
      .query<{ count: string }[]>(`SELECT count(*) AS count FROM audit_log WHERE actor_id = $1 AND source = 'api'`, [ada.userId]);
    expect(Number(count)).toBe(50);

    // Reads count too, on every route family; Bob has his own count.
    for (const path of [`/api/${ada.userId}/tasks`, `/api/${ada.userId}/conversations`, `/api/${ada.userId}/campaigns`, '/auth/me']) {
      expect((await request(sut.http).get(path).set(ada.auth)).status).toBe(429);
    }
    expect((await request(sut.http).get(`/api/${bob.userId}/tasks`).set(bob.auth)).status).toBe(200);
  });
});

describe('chat turns per user per minute', () => {
  const sut = useTestApp({ env: { CHAT_RATE_LIMIT_PER_MINUTE: '2' } });

  it('counts the plain and streaming routes together and answers 429 with Retry-After, storing nothing', async () => {
    const [alice, bob] = [await signUpAndIn(sut.http), await signUpAndIn(sut.http)];
    const chat = (user: SignedInUser, route: 'chat' | 'chat/stream') =>
      request(sut.http).post(`/api/${user.userId}/${route}`).set(user.auth).send({ message: 'list my tasks' });

    expect((await chat(alice, 'chat')).status).toBe(200);
    expect((await chat(alice, 'chat/stream')).status).toBe(200);
    for (const route of ['chat', 'chat/stream'] as const) {
      const refused = await chat(alice, route);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(50);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers['retry-after-chat']).toBe(refused.headers['retry-after']);
    }
    // Only the two turns that ran were stored; Bob has his own count.
    const conversations = await request(sut.http).get(`/api/${alice.userId}/conversations`).set(alice.auth);
    expect(conversations.body.items).toHaveLength(2);
    expect((await chat(bob, 'chat')).status).toBe(200);
  });
});

// Two server processes (the built service, as deployed), each with its own memory, on one
// PostgreSQL database. PGlite is one process's database, so this runs in the PostgreSQL pass.
const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

describeOnPostgres('two server processes on one PostgreSQL', () => {
  const OUT_DIR = join(ROOT, 'dist-test-limits');
  let db: TestDatabase;
  let dataDir: string;
  const servers: RunningService[] = [];

  beforeAll(async () => {
    await buildService(OUT_DIR);
    db = await createTestDatabase({ fresh: true });
    if (db.settings.kind !== 'server') throw new Error('PostgreSQL only');
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-limits-'));
    const env = {
      DATABASE_URL: db.settings.url,
      BRIDLE_DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      CHAT_RATE_LIMIT_PER_MINUTE: '4',
      SIGN_IN_ATTEMPTS_PER_ACCOUNT: '3',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      MCP_RATE_LIMIT_PER_MINUTE: '2',
      API_RATE_LIMIT_PER_MINUTE: '10',
    };
    // One after the other: the first one migrates the database.
    servers.push(await startService(MAIN(OUT_DIR), env));
    servers.push(await startService(MAIN(OUT_DIR), env));
  }, 180_000);

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.exited));
    await db?.dispose();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    removeBuild(OUT_DIR);
  });

  it('share the chat, sign-in, MCP and API limits', async () => {
    const credentials = { email: uniqueEmail(), password: PASSWORD };
    expect((await callService(servers[0], 'POST', '/auth/register', credentials)).status).toBe(201);
    const login = await callService<{ accessToken: string; userId: string }>(servers[1], 'POST', '/auth/login', credentials);
    const { accessToken: token, userId } = login.body;
    const chat: number[] = [];
    for (let i = 0; i < 6; i++) {
      chat.push((await callService(servers[i % 2], 'POST', `/api/${userId}/chat`, { message: 'list my tasks' }, token)).status);
    }
    // Four in all, whichever server took them.
    expect(chat).toEqual([200, 200, 200, 200, 429, 429]);

    const signIn: number[] = [];
    for (let i = 0; i < 5; i++) {
      signIn.push((await callService(servers[i % 2], 'POST', '/auth/login', { email: credentials.email, password: 'wrong guess' })).status);
    }
    // Three per account across both servers, the sign-in that began the session included.
    expect(signIn).toEqual([401, 401, 429, 429, 429]);

    const mcp: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${servers[i % 2].baseUrl}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
      });
      await res.arrayBuffer();
      mcp.push(res.status);
    }
    expect(mcp).toEqual([200, 200, 429, 429]);

    // The API limit: 10 requests in all, whichever server took them (the chat turns above count against the chat's own limit only).
    const api: number[] = [];
    for (let i = 0; i < 12; i++) api.push((await callService(servers[i % 2], 'GET', `/api/${userId}/tasks`, undefined, token)).status);
    expect(api).toEqual([...Array<number>(10).fill(200), 429, 429]);
  });
});
