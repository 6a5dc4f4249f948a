import request from 'supertest';
import { signUpAndIn, uniqueEmail } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/test-app';
import { useTestDatabase } from '../support/test-database';

/** Signing up makes a plain user, whatever the address; only the operator makes admins. */
describe('signing up', () => {
  const db = useTestDatabase();
  let sut: TestApp | undefined;

  afterEach(async () => {
    await sut?.close();
    sut = undefined;
  });

  it('gives an address once listed in ADMIN_EMAILS no admin access', async () => {
    const email = uniqueEmail();
    // The variable is no longer read: an old deployment's environment must not make admins.
    sut = await startTestApp(db, { ADMIN_EMAILS: email });
    const registered = await request(sut.http).post('/auth/register').send({ email, password: 'correct horse battery' });
    expect({ status: registered.status, role: registered.body.role }).toEqual({ status: 201, role: 'user' });
    const signedIn = await request(sut.http).post('/auth/login').send({ email, password: 'correct horse battery' }).expect(200);
    const auth = { Authorization: `Bearer ${signedIn.body.accessToken}` };

    expect((await request(sut.http).get('/auth/me').set(auth).expect(200)).body).toMatchObject({ email, role: 'user' });
    for (const path of ['/admin/audit-logs', '/admin/audit-logs/verify', '/admin/decisions']) {
      const refused = await request(sut.http).get(path).set(auth);
      expect({ path, status: refused.status, code: refused.body.code }).toEqual({ path, status: 403, code: 'AUTH.FORBIDDEN' });
    }
  });

  it('is refused with 403 AUTH.SIGN_UP_CLOSED when SIGN_UP=closed, and signing in still works', async () => {
    sut = await startTestApp(db, { SIGN_UP: 'open' });
    const existing = await signUpAndIn(sut.http);
    await sut.close();

    sut = await startTestApp(db, { SIGN_UP: 'closed' });
    const res = await request(sut.http).post('/auth/register').send({ email: uniqueEmail(), password: 'correct horse battery' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: {
        statusCode: 403,
        code: 'AUTH.SIGN_UP_CLOSED',
        message: 'Sign-up is closed: an operator creates accounts',
        correlationId: res.headers['x-request-id'],
      },
    });
    await request(sut.http).post('/auth/login').send({ email: existing.email, password: 'correct horse battery' }).expect(200);
  });
});
