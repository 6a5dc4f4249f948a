import { spawn } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';
import { useTestDatabase } from '../support/test-database';
import { ROOT, useBuiltService } from '../support/built-service';

/** The operator's command as built: `node dist/admin.js <command>` against the database the service uses. */
const OUT_DIR = join(ROOT, 'dist-test-admin');

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

describe('npm run admin (the built command)', () => {
  useBuiltService(OUT_DIR);
  let sut: TestApp | undefined;
  const db = useTestDatabase({ fresh: true, beforeDispose: () => sut?.close() });

  function admin(args: string[], stdin = ''): Promise<Run> {
    const child = spawn(process.execPath, [join(OUT_DIR, 'admin.js'), ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...(db.settings.kind === 'embedded' ? { BRIDLE_DATA_DIR: db.settings.dataDir } : { DATABASE_URL: db.settings.url }),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
  }

  const signIn = async (http: TestApp['http'], email: string, password: string) => {
    const res = await request(http).post('/auth/login').send({ email, password }).expect(200);
    return { Authorization: `Bearer ${res.body.accessToken as string}` };
  };

  it('creates accounts, grants, lists and revokes the admin role, audited, with clear answers and exit statuses', async () => {
    // On a database nobody has used yet: the command runs the migrations itself.
    const added = await admin(['add-user', 'Ada@Example.com']);
    expect(added).toEqual({
      status: 0,
      stdout: expect.stringMatching(/^Created ada@example\.com \(account [0-9a-f-]{36}, role user\)\.\n/),
      stderr: '',
    });
    const password = /^Password, shown this once: (\S+)$/m.exec(added.stdout)?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(20);
    const piped = await admin(['add-user', 'bob@example.com', '--password-stdin'], 'a passphrase from stdin\n');
    expect(piped).toEqual({ status: 0, stdout: expect.not.stringContaining('Password') as string, stderr: '' });

    expect(await admin(['list'])).toEqual({ status: 0, stdout: 'No account holds the admin role.\n', stderr: '' });
    const granted = await admin(['grant', 'ada@example.com']);
    expect(granted).toEqual({
      status: 0,
      stdout: expect.stringMatching(
        /^ada@example\.com \(account [0-9a-f-]{36}\) is now an admin, from its next request\. Recorded in the audit log\.\n$/,
      ),
      stderr: '',
    });
    expect((await admin(['grant', 'ada@example.com'])).stdout).toContain('was already an admin; nothing changed');
    expect(await admin(['list'])).toEqual({ status: 0, stdout: expect.stringMatching(/^ada@example\.com\t[0-9a-f-]{36}\n$/), stderr: '' });

    expect(await admin(['grant', 'nobody@example.com'])).toEqual({
      status: 1,
      stdout: '',
      stderr: 'No account has the email nobody@example.com (AUTH.ACCOUNT_NOT_FOUND)\n',
    });
    expect(await admin(['revoke', 'nobody@example.com'])).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('No account has the email'),
    });
    expect(await admin(['add-user', 'ada@example.com'])).toMatchObject({ status: 1, stderr: expect.stringContaining('AUTH.EMAIL_TAKEN') });
    expect(await admin(['promote', 'ada@example.com'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('Unknown command "promote"'),
    });
    expect(await admin(['grant'])).toMatchObject({ status: 2, stderr: expect.stringContaining('Usage: npm run admin') });

    // The service, with sign-up closed, on the same database: the operator's accounts sign in.
    sut = await startTestApp(db, { SIGN_UP: 'closed' });
    const ada = await signIn(sut.http, 'ada@example.com', password);
    await signIn(sut.http, 'bob@example.com', 'a passphrase from stdin');
    const rows = (await request(sut.http).get('/admin/audit-logs?tool=grant_admin').set(ada).expect(200)).body.items as {
      tool: string;
      status: string;
      arguments: unknown;
    }[];
    expect(rows.map((row) => [row.tool, row.status, row.arguments])).toEqual(
      Array.from({ length: 4 }, (_, i) => [
        'grant_admin',
        i % 2 === 0 ? 'succeeded' : 'pending',
        { email: 'ada@example.com', operator: userInfo().username },
      ]),
    );
    if (db.kind === 'embedded') {
      // One process per embedded data folder: the command says so while the service runs.
      const refused = await admin(['list']);
      expect(refused).toMatchObject({ status: 1, stderr: expect.stringContaining('is in use by another Bridle process') });
    }
    await sut.close();
    sut = undefined;

    expect((await admin(['revoke', 'ada@example.com'])).stdout).toContain('is no longer an admin');
    expect(await admin(['list'])).toEqual({ status: 0, stdout: 'No account holds the admin role.\n', stderr: '' });

    sut = await startTestApp(db, { SIGN_UP: 'closed' });
    const refused = await request(sut.http).get('/admin/audit-logs').set(ada);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'AUTH.FORBIDDEN' });
    const bob = await signIn(sut.http, 'bob@example.com', 'a passphrase from stdin');
    await sut.close();
    sut = undefined;
    expect((await admin(['grant', 'bob@example.com'])).status).toBe(0);
    sut = await startTestApp(db, { SIGN_UP: 'closed' });
    const verified = await request(sut.http).get('/admin/audit-logs/verify').set(bob).expect(200);
    expect(verified.body).toMatchObject({ verified: true, firstBadSeq: null });
  }, 180_000);
});
