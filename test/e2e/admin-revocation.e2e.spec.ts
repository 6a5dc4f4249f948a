import request from 'supertest';
import { signUpAndIn } from '../support/accounts';
import { grantAdmin, revokeAdmin } from '../support/admins';
import { useTestApp } from '../support/test-app';

interface AuditItem {
  seq: number;
  source: string;
  actorId: string;
  tool: string;
  arguments: unknown;
  status: string;
  result: unknown;
  pendingSeq: number | null;
}

/** The operator grants and revokes the admin role; a token follows the account's role as it is now. */
describe('granting and revoking the admin role', () => {
  const sut = useTestApp();

  it('opens /admin from the next request after a grant, and closes it for the same token after a revoke', async () => {
    const ada = await signUpAndIn(sut.http);
    // The token was issued to a plain user, and stays the one used throughout.
    await request(sut.http).get('/admin/audit-logs').set(ada.auth).expect(403);

    await grantAdmin(sut.app, ada.email);
    await request(sut.http).get('/admin/audit-logs').set(ada.auth).expect(200);
    expect((await request(sut.http).get('/auth/me').set(ada.auth).expect(200)).body).toMatchObject({ role: 'admin' });

    const rows = (await request(sut.http).get(`/admin/audit-logs?actorId=${ada.userId}&tool=grant_admin`).set(ada.auth).expect(200)).body
      .items as AuditItem[];
    expect(rows.map((row) => [row.source, row.tool, row.status, row.arguments, row.result])).toEqual([
      ['admin', 'grant_admin', 'succeeded', { email: ada.email, operator: 'test' }, { previousRole: 'user', role: 'admin' }],
      ['admin', 'grant_admin', 'pending', { email: ada.email, operator: 'test' }, null],
    ]);
    expect(rows[0].pendingSeq).toBe(rows[1].seq);

    await revokeAdmin(sut.app, ada.email);
    const refused = await request(sut.http).get('/admin/audit-logs').set(ada.auth);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: expect.objectContaining({ statusCode: 403, code: 'AUTH.FORBIDDEN' }),
    });
    expect((await request(sut.http).get('/auth/me').set(ada.auth).expect(200)).body).toMatchObject({ role: 'user' });
    // Still a valid account: only the role went.
    await request(sut.http).get(`/api/${ada.userId}/tasks`).set(ada.auth).expect(200);

    // Another admin reads the revocation, and the chain holds with both changes in it.
    const bob = await signUpAndIn(sut.http);
    await grantAdmin(sut.app, bob.email);
    const revoked = (await request(sut.http).get(`/admin/audit-logs?actorId=${ada.userId}&source=admin`).set(bob.auth).expect(200)).body
      .items as AuditItem[];
    expect(revoked.map((row) => [row.tool, row.status])).toEqual([
      ['revoke_admin', 'succeeded'],
      ['revoke_admin', 'pending'],
      // Ada's own read of the log while she was an admin.
      ['admin.audit_logs.list', 'succeeded'],
      ['admin.audit_logs.list', 'succeeded'],
      ['grant_admin', 'succeeded'],
      ['grant_admin', 'pending'],
    ]);
    expect(revoked[0].result).toEqual({ previousRole: 'admin', role: 'user' });
    const verified = await request(sut.http).get('/admin/audit-logs/verify').set(bob.auth).expect(200);
    expect(verified.body).toMatchObject({ verified: true, firstBadSeq: null });
  });
});
