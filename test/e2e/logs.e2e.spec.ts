import request from 'supertest';
import { DataSource } from 'typeorm';
import { captureStdout } from '../support/log-capture';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('what the logs hold', () => {
  let db: TestDatabase;
  let sut: TestApp;
  let me: SignedInUser;
  let stdout: ReturnType<typeof captureStdout>;

  beforeAll(async () => {
    db = await createTestDatabase();
    stdout = captureStdout();
    sut = await startTestApp(db, { LOG_LEVEL: 'info' });
    me = await signUpAndIn(sut.http);
  });

  afterAll(async () => {
    await sut?.close();
    stdout?.restore();
    await db?.dispose();
  });

  it('logs requests, with a credential in the query string masked', async () => {
    // Refused (an unknown query field), and logged all the same.
    await request(sut.http).get(`/api/${me.userId}/tasks?status=pending&access_token=${me.token}`).set(me.auth).expect(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = stdout.text().split('\n').find((entry) => entry.includes('"statusCode":400') && entry.includes('status=pending'));
    expect(line).toContain('access_token=[REDACTED]');
    expect(stdout.text()).not.toContain(me.token);
  });

  it('logs an unexpected error as its class, code and message, never the query parameters', async () => {
    // A database that refuses this one message: the turn fails in SQL holding the text.
    await sut.app.get(DataSource).query(`ALTER TABLE messages ADD CONSTRAINT refuse_hunter CHECK (content NOT LIKE '%hunter2%')`);
    const res = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message: 'remember my password hunter2-secret' });
    expect(res.status).toBe(500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = stdout.text().split('\n').find((entry) => entry.includes('request failed'));
    expect(JSON.parse(line!)).toMatchObject({
      err: { type: 'QueryFailedError', code: '23514', message: expect.stringContaining('refuse_hunter') },
      path: `/api/${me.userId}/chat`,
    });
    expect(stdout.text()).not.toContain('hunter2-secret');
  });
});
