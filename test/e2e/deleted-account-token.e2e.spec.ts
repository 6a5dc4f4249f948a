import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { signUpAndIn } from '../support/accounts';
import { TEST_JWT_SECRET, useTestApp } from '../support/test-app';

/**
 * A token can outlive its account: the database was reset (or restored from an older
 * backup) while JWT_SECRET stayed the same. Such a token is signed correctly and has not
 * expired, yet it names nobody.
 */
describe('a valid token whose account does not exist', () => {
  const sut = useTestApp();

  /** What `JwtAccessTokenService` issues, for an account id that was never stored. */
  function tokenFor(userId: string, role: 'user' | 'admin' = 'user'): string {
    return jwt.sign({ sub: userId, email: 'gone@example.com', role }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
      issuer: 'bridle',
      expiresIn: 600,
    });
  }

  const MCP_CALL = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'add_task', arguments: { title: 'From a ghost' } },
  };

  it.each([
    ['POST', '/api/:userId/tasks', { title: 'Buy milk' }],
    ['POST', '/api/:userId/chat', { message: 'add buy milk' }],
    ['POST', '/api/:userId/campaigns', { name: 'Ghost campaign' }],
    ['POST', '/api/:userId/do-not-contact', { value: 'ada@example.com' }],
    ['GET', '/auth/me', undefined],
    ['POST', '/mcp', MCP_CALL],
  ] as const)('%s %s is 401, not a server error', async (method, route, body) => {
    const userId = randomUUID();
    const path = route.replace(':userId', userId);
    const call = method === 'GET' ? request(sut.http).get(path) : request(sut.http).post(path).send(body);
    const res = await call.set('Authorization', `Bearer ${tokenFor(userId)}`).set('Accept', 'application/json, text/event-stream');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: {
        statusCode: 401,
        code: 'AUTH.UNAUTHENTICATED',
        message: 'The account for this token no longer exists',
        correlationId: res.headers['x-request-id'],
      },
    });
  });

  it('gives an admin claim in a token of no account no admin access', async () => {
    const res = await request(sut.http)
      .get('/admin/audit-logs')
      .set('Authorization', `Bearer ${tokenFor(randomUUID(), 'admin')}`);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'AUTH.UNAUTHENTICATED' });
  });

  it('still serves a token whose account exists', async () => {
    const ada = await signUpAndIn(sut.http);
    await request(sut.http).post(`/api/${ada.userId}/tasks`).set(ada.auth).send({ title: 'Buy milk' }).expect(201);
    await request(sut.http).get('/auth/me').set(ada.auth).expect(200);
  });
});
