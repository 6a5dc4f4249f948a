import request from 'supertest';
import { DataSource } from 'typeorm';
import { DatabaseRateLimitStore } from '../../src/infrastructure/persistence/repositories/database-rate-limit-store';
import { startTestApp, type TestApp, useTestApp } from '../support/test-app';
import { usingPostgresServer, useTestDatabase } from '../support/test-database';

/** The SDK's limit on POST /register: 20 an hour per address. */
const REGISTRATIONS_PER_HOUR = 20;
const HOUR_MS = 3_600_000;
const ADDRESS = '203.0.113.7';

function register(app: TestApp, address = ADDRESS): request.Test {
  return request(app.http)
    .post('/register')
    .set('X-Forwarded-For', address)
    .send({ client_name: 'Fleet client', redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' });
}

function expectRefused(res: request.Response): void {
  expect({ status: res.status, error: (res.body as { error?: string }).error }).toEqual({ status: 429, error: 'too_many_requests' });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= HOUR_MS / 1000).toBe(true);
}

describe('OAuth endpoint limits kept in the database', () => {
  const sut = useTestApp({ env: { TRUST_PROXY: 'loopback' } });

  // PGlite is one process's database, so another replica is its limiter: a store of its own
  // on the same database, counting the same address's registrations under the same key.
  it('counts registrations from one address together with another replica, 20 an hour in all', async () => {
    const replica = new DatabaseRateLimitStore(sut.app.get(DataSource), 'oauth-register:');
    replica.init({ windowMs: HOUR_MS, limit: REGISTRATIONS_PER_HOUR } as Parameters<DatabaseRateLimitStore['init']>[0]);

    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) {
      if (i % 2 === 0) await register(sut).expect(201);
      else expect((await replica.increment(ADDRESS)).totalHits).toBe(i + 1);
    }

    expectRefused(await register(sut));
    expect((await replica.increment(ADDRESS)).totalHits).toBeGreaterThan(REGISTRATIONS_PER_HOUR);
    // Per address: another one still registers.
    await register(sut, '203.0.113.8').expect(201);
  });
});

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

// Three apps, each with its own memory, on one PostgreSQL database: what three replicas are.
describeOnPostgres('OAuth endpoint limits across three apps on one PostgreSQL', () => {
  const apps: TestApp[] = [];
  const db = useTestDatabase({
    beforeDispose: async () => {
      for (const app of apps) await app.close();
    },
  });

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) apps.push(await startTestApp(db, { TRUST_PROXY: 'loopback' }));
  });

  it('accepts 20 of 30 registrations from one address sent to the three in turn, and refuses the rest on each', async () => {
    const answers: request.Response[] = [];
    for (let i = 0; i < 30; i++) answers.push(await register(apps[i % 3]));
    expect(answers.slice(0, REGISTRATIONS_PER_HOUR).map((res) => res.status)).toEqual(Array<number>(REGISTRATIONS_PER_HOUR).fill(201));
    answers.slice(REGISTRATIONS_PER_HOUR).forEach(expectRefused);
  });
});
