import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'battery staple horse correct';

/** POST /auth/password: a new password ends every session opened before it, and keeps the caller signed in. */
describe('changing the password', () => {
  const sut = useTestApp();

  const change = (user: SignedInUser, body: object) => request(sut.http).post('/auth/password').set(user.auth).send(body);
  const login = (email: string, password: string) => request(sut.http).post('/auth/login').send({ email, password });
  const storedPassword = async (userId: string) => {
    const [row] = await sut.app
      .get(DataSource)
      .query<{ hash: string; version: number }[]>('SELECT password_hash AS hash, credentials_version AS version FROM users WHERE id = $1', [
        userId,
      ]);
    return row;
  };

  it('answers a fresh token that works, refuses every older one with "sign in again", and swaps the password for login', async () => {
    const ada = await signUpAndIn(sut.http);
    const otherSession = (await login(ada.email, PASSWORD).expect(200)).body as { accessToken: string };
    const before = await storedPassword(ada.userId);
    expect(before.version).toBe(0);

    const res = await change(ada, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 3600, userId: ada.userId });
    expect(JSON.stringify(res.body)).not.toContain(NEW_PASSWORD);
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const after = await storedPassword(ada.userId);
    expect(after.version).toBe(1);
    expect(after.hash).not.toBe(before.hash);
    expect(after.hash).not.toContain(NEW_PASSWORD);

    for (const token of [ada.token, otherSession.accessToken]) {
      const stale = await request(sut.http).get('/auth/me').set('Authorization', `Bearer ${token}`);
      expect({ status: stale.status, body: stale.body }).toEqual({
        status: 401,
        body: {
          statusCode: 401,
          code: 'AUTH.UNAUTHENTICATED',
          message: 'The password was changed: sign in again',
          correlationId: stale.headers['x-request-id'],
        },
      });
    }
    // Every guarded route, not only /auth/me.
    const staleTasks = await request(sut.http).get(`/api/${ada.userId}/tasks`).set(ada.auth);
    expect({ status: staleTasks.status, code: staleTasks.body.code }).toEqual({ status: 401, code: 'AUTH.UNAUTHENTICATED' });
    // The chat reads the session's account in its turn's opening statement, not in the guard:
    // the same answer and challenge, and nothing of the turn stored or counted.
    const guardChallenge = (await request(sut.http).get('/auth/me').set(ada.auth)).headers['www-authenticate'];
    expect(guardChallenge).toMatch(
      /^Bearer resource_metadata=".+", error="invalid_token", error_description="The password was changed: sign in again"$/,
    );
    for (const path of ['chat', 'chat/stream']) {
      const staleChat = await request(sut.http).post(`/api/${ada.userId}/${path}`).set(ada.auth).send({ message: 'add buy milk' });
      expect({ status: staleChat.status, body: staleChat.body, challenge: staleChat.headers['www-authenticate'] }).toEqual({
        status: 401,
        body: {
          statusCode: 401,
          code: 'AUTH.UNAUTHENTICATED',
          message: 'The password was changed: sign in again',
          correlationId: staleChat.headers['x-request-id'],
        },
        challenge: guardChallenge,
      });
    }
    const stored = await sut.app
      .get(DataSource)
      .query<{ n: number }[]>(
        `SELECT ((SELECT count(*) FROM conversations WHERE user_id = $1) + (SELECT count(*) FROM rate_limits WHERE key = 'chat:' || $1))::int AS n`,
        [ada.userId],
      );
    expect(stored).toEqual([{ n: 0 }]);

    const fresh = { Authorization: `Bearer ${res.body.accessToken as string}` };
    expect((await request(sut.http).get('/auth/me').set(fresh).expect(200)).body).toMatchObject({ id: ada.userId, email: ada.email });
    await request(sut.http).post(`/api/${ada.userId}/tasks`).set(fresh).send({ title: 'Buy milk' }).expect(201);

    const oldPassword = await login(ada.email, PASSWORD);
    expect({ status: oldPassword.status, code: oldPassword.body.code }).toEqual({ status: 401, code: 'AUTH.INVALID_CREDENTIALS' });
    const newLogin = await login(ada.email, NEW_PASSWORD).expect(200);
    await request(sut.http)
      .get('/auth/me')
      .set('Authorization', `Bearer ${newLogin.body.accessToken as string}`)
      .expect(200);
  });

  it('refuses a wrong current password with 401 AUTH.INVALID_CREDENTIALS and changes nothing', async () => {
    const ada = await signUpAndIn(sut.http);
    const before = await storedPassword(ada.userId);
    const res = await change(ada, { currentPassword: 'not my password', newPassword: NEW_PASSWORD });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: {
        statusCode: 401,
        code: 'AUTH.INVALID_CREDENTIALS',
        message: 'The current password is wrong',
        correlationId: res.headers['x-request-id'],
      },
    });
    expect(await storedPassword(ada.userId)).toEqual(before);
    await request(sut.http).get('/auth/me').set(ada.auth).expect(200);
    await login(ada.email, PASSWORD).expect(200);
    expect((await login(ada.email, NEW_PASSWORD)).status).toBe(401);
  });

  it('refuses a token from before an earlier change, even with the right password', async () => {
    const ada = await signUpAndIn(sut.http);
    await change(ada, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }).expect(200);
    const res = await change(ada, { currentPassword: NEW_PASSWORD, newPassword: 'a third one entirely' });
    expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
      status: 401,
      code: 'AUTH.UNAUTHENTICATED',
      message: 'The password was changed: sign in again',
    });
    expect((await storedPassword(ada.userId)).version).toBe(1);
  });

  it('refuses a caller without a token', async () => {
    const res = await request(sut.http).post('/auth/password').send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'AUTH.UNAUTHENTICATED' });
  });

  it.each([
    ['newPassword too short', { currentPassword: PASSWORD, newPassword: 'short' }, /^newPassword must be longer than or equal to 8/],
    [
      'newPassword too long',
      { currentPassword: PASSWORD, newPassword: 'x'.repeat(257) },
      /^newPassword must be shorter than or equal to 256/,
    ],
    ['newPassword missing', { currentPassword: PASSWORD }, /^newPassword /],
    ['newPassword not a string', { currentPassword: PASSWORD, newPassword: 12345678 }, /^newPassword must be a string/],
    ['currentPassword missing', { newPassword: NEW_PASSWORD }, /^currentPassword /],
    ['currentPassword too long', { currentPassword: 'x'.repeat(257), newPassword: NEW_PASSWORD }, /^currentPassword must be shorter/],
    ['an unknown field', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, email: 'x@example.com' }, /^email: unknown field/],
  ])('refuses %s with 400 naming the field, and changes nothing', async (_, body, message) => {
    const ada = await signUpAndIn(sut.http);
    const before = await storedPassword(ada.userId);
    const res = await change(ada, body);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION.FAILED' });
    expect(res.body.message).toMatch(message);
    expect(res.body.message).not.toContain(PASSWORD);
    expect(await storedPassword(ada.userId)).toEqual(before);
    await request(sut.http).get('/auth/me').set(ada.auth).expect(200);
  });
});
