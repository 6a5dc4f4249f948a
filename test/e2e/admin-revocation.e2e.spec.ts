import request from 'supertest';
import { signUpAndIn, uniqueEmail } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('taking an address out of ADMIN_EMAILS', () => {
  let db: TestDatabase;
  let sut: TestApp | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  it('ends its admin access at the restart, even with a token issued before', async () => {
    const email = uniqueEmail();
    sut = await startTestApp(db, { ADMIN_EMAILS: email });
    const admin = await signUpAndIn(sut.http, email);
    await request(sut.http).get('/admin/audit-logs/verify').set(admin.auth).expect(200);
    await sut.close();

    // Same database and signing secret; the address is no longer listed. The token is still valid.
    sut = await startTestApp(db, { ADMIN_EMAILS: 'someone-else@example.com' });
    await request(sut.http).get('/auth/me').set(admin.auth).expect(200);
    const refused = await request(sut.http).get('/admin/audit-logs').set(admin.auth).expect(403);
    expect(refused.body).toEqual(expect.objectContaining({ code: 'AUTH.FORBIDDEN' }));
  });
});
