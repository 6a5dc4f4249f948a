import request from 'supertest';
import { DataSource } from 'typeorm';
import { PolicyProvider } from '../../src/application/policy/policy-provider';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

interface PolicyVersion {
  version: number;
  builtIn: boolean;
  rules: Record<string, unknown>[];
  authorId: string | null;
  authorEmail: string | null;
  reason: string | null;
  createdAt: string | null;
}

interface Problem {
  position: number | null;
  rule?: string;
  field: string;
  message: string;
}

/** Deletions over MCP need a reviewer nobody is: refused, with the admin's reason. */
const NO_MCP_DELETES = {
  name: 'no-mcp-deletes',
  tools: ['delete_task'],
  sources: ['mcp'],
  effect: 'deny',
  reason: 'Delete in the console.',
};
const ADD_CAP = { name: 'add-cap', tools: ['add_task'], effect: 'limit', limit: { max: 50, per: 'person', window: 'hour' } };

/** The policy over the admin API: read, stored as versions, refused whole, exported and imported as YAML, audited. */
describe('admin policy API', () => {
  const sut = useTestApp();
  const admin = sut.user({ admin: true });
  const ada = sut.user();
  let sql: DataSource;

  beforeAll(() => {
    sql = sut.app.get(DataSource);
  });

  const get = (path: string) => request(sut.http).get(path).set(admin.auth);
  const put = (body: unknown) =>
    request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .send(body as object);
  const storedVersions = async () => Number((await sql.query<{ n: string }[]>(`SELECT count(*) AS n FROM policy_versions`))[0].n);

  it('reads the built-in policy as version 0 before any is stored', async () => {
    const res = await get('/admin/policy').expect(200);
    const body = res.body as PolicyVersion;
    expect(body).toMatchObject({ version: 0, builtIn: true, authorId: null, authorEmail: null, reason: null, createdAt: null });
    expect(body.rules).toEqual([expect.objectContaining({ name: 'destruction-needs-the-person', effect: 'ask-person' })]);
    expect(((await get('/admin/policy/versions').expect(200)).body as { items: unknown[] }).items).toEqual([]);
    expect(((await get('/admin/policy/versions/0').expect(200)).body as PolicyVersion).builtIn).toBe(true);
  });

  it('refuses the policy to anyone but an admin, for reading and for writing', async () => {
    for (const call of [
      request(sut.http).get('/admin/policy'),
      request(sut.http).get('/admin/policy/versions'),
      request(sut.http).get('/admin/policy/versions/0'),
      request(sut.http).put('/admin/policy').send({ rules: [], reason: 'mine now' }),
    ]) {
      const res = await call.set(ada.auth).expect(403);
      // Said of every admin route, not of the audit trail alone.
      expect(res.body).toMatchObject({
        code: 'AUTH.FORBIDDEN',
        message: 'This is for admins only: your account does not hold the admin role',
      });
    }
    expect(await storedVersions()).toBe(0);
  });

  it('stores a policy as version 1, in force at once, and reads it back', async () => {
    const res = await put({ rules: [NO_MCP_DELETES, ADD_CAP], reason: '  MCP clients delete nothing for now  ' }).expect(200);
    const stored = res.body as PolicyVersion;
    expect(stored).toMatchObject({
      version: 1,
      builtIn: false,
      authorId: admin.userId,
      authorEmail: admin.email,
      reason: 'MCP clients delete nothing for now',
      rules: [NO_MCP_DELETES, ADD_CAP],
    });
    expect(Date.parse(stored.createdAt ?? '')).not.toBeNaN();
    // This process puts it in force before it answers.
    expect(sut.app.get(PolicyProvider).current().version).toBe(1);

    expect((await get('/admin/policy').expect(200)).body).toEqual(stored);
    expect((await get('/admin/policy/versions/1').expect(200)).body).toEqual(stored);
    expect((await get('/admin/policy/versions').expect(200)).body).toEqual({
      items: [
        { version: 1, rules: 2, authorId: admin.userId, authorEmail: admin.email, reason: stored.reason, createdAt: stored.createdAt },
      ],
      nextCursor: null,
    });
    expect((await get('/admin/policy/versions/2').expect(404)).body).toMatchObject({ code: 'POLICY.VERSION_NOT_FOUND' });
  });

  it('refuses a malformed policy whole, naming each rule by position and why, and stores nothing', async () => {
    const before = await storedVersions();
    const res = await put({
      rules: [
        { name: 'Bad Name', tools: ['delete_task'], effect: 'deny', reason: 'no' },
        { name: 'ghost', tools: ['no_such_tool'], effect: 'allow' },
        { name: 'someone', tools: ['add_task'], people: ['nobody@example.com'], effect: 'allow' },
      ],
      reason: 'three mistakes',
    }).expect(400);
    const body = res.body as { code: string; message: string; problems: Problem[] };
    expect(body.code).toBe('POLICY.INVALID');
    expect(body.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ position: 1, field: 'rules[1].name' }),
        expect.objectContaining({ position: 2, rule: 'ghost', field: expect.stringMatching(/^rules\[2\]\.tools/) }),
      ]),
    );
    for (const problem of body.problems) expect(problem.message.length).toBeGreaterThan(0);
    expect(body.message).toMatch(/rule 1/);

    // An email that is no account's is a problem too, once the rules read.
    const unknown = await put({
      rules: [{ name: 'someone', tools: ['add_task'], people: ['nobody@example.com'], effect: 'allow' }],
      reason: 'a stranger',
    }).expect(400);
    expect((unknown.body as { problems: Problem[] }).problems).toEqual([
      { position: 1, rule: 'someone', field: 'rules[1].people[0]', message: "'nobody@example.com' is no account's email" },
    ]);

    // The other fields are checked as any body's, naming the field.
    expect((await put({ rules: [] }).expect(400)).body).toMatchObject({
      code: 'VALIDATION.FAILED',
      message: expect.stringMatching(/^reason/),
    });
    expect((await put({ rules: [], reason: 'x'.repeat(501) }).expect(400)).body).toMatchObject({
      message: 'reason must be 1 to 500 characters',
    });
    expect((await put({ rules: [], reason: 'ok', extra: 1 }).expect(400)).body).toMatchObject({ message: expect.stringMatching(/^extra/) });
    expect(await storedVersions()).toBe(before);
    expect(sut.app.get(PolicyProvider).current().version).toBe(before);
  });

  it('exports the rules as YAML and stores the file back as the next version', async () => {
    const exported = await asText(get('/admin/policy?format=yaml')).expect(200);
    expect(exported.headers['content-type']).toMatch(/^application\/yaml/);
    const yaml = exported.body as string;
    expect(yaml).toMatch(/^# Bridle policy version 1, stored .* by .*: MCP clients delete nothing for now\n/);
    expect(yaml).toContain('- name: no-mcp-deletes');
    // Accept asks for the same file.
    expect((await asText(get('/admin/policy').set('accept', 'application/yaml')).expect(200)).body).toBe(yaml);

    const res = await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .set('content-type', 'application/yaml')
      .send(`${yaml}reason: "Round trip: the same rules, from a file"\n`)
      .expect(200);
    expect(res.body).toMatchObject({ version: 2, rules: [NO_MCP_DELETES, ADD_CAP], reason: 'Round trip: the same rules, from a file' });
    expect(sut.app.get(PolicyProvider).current().version).toBe(2);
    expect((await asText(get('/admin/policy/versions/1?format=yaml')).expect(200)).body).toBe(yaml);

    // A file that is no YAML, or with aliases, is refused with where.
    const broken = await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .set('content-type', 'application/yaml')
      .send('rules: [\nreason: x');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: 'VALIDATION.FAILED', message: expect.stringMatching(/^body is not valid YAML at line \d+/) });
    const aliased = await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .set('content-type', 'application/yaml')
      .send('a: &x [1]\nrules: *x\nreason: x\n');
    expect(aliased.status).toBe(400);
    expect(aliased.body).toMatchObject({ code: 'VALIDATION.FAILED', message: expect.stringMatching(/^body is not valid YAML: Alias/) });
    // A file is bounded as a JSON body is: 64 KB.
    const huge = await request(sut.http)
      .put('/admin/policy')
      .set(admin.auth)
      .set('content-type', 'application/yaml')
      .send(`reason: big\nrules: []\n# ${'x'.repeat(70 * 1024)}\n`);
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: 'HTTP.PAYLOAD_TOO_LARGE' });
    // And a type that is neither.
    const plain = await request(sut.http).put('/admin/policy').set(admin.auth).set('content-type', 'text/plain').send('rules: []');
    expect(plain.status).toBe(415);
    expect(await storedVersions()).toBe(2);
  });

  it('audits each change as change_policy: a pending row, then its outcome naming the version', async () => {
    const res = await get('/admin/audit-logs?tool=change_policy&limit=10').expect(200);
    const rows = (
      res.body as {
        items: {
          seq: number;
          source: string;
          actorId: string;
          status: string;
          arguments: unknown;
          result: unknown;
          pendingSeq: number | null;
        }[];
      }
    ).items;
    // Two changes stored, newest first; the refused ones left no row.
    expect(rows.map((row) => row.status)).toEqual(['succeeded', 'pending', 'succeeded', 'pending']);
    const [second, secondPending, first, firstPending] = rows;
    expect(firstPending).toMatchObject({
      source: 'admin',
      actorId: admin.userId,
      arguments: { reason: 'MCP clients delete nothing for now', rules: 2, basedOn: 0 },
    });
    expect(first).toMatchObject({ pendingSeq: firstPending.seq, result: { version: 1 } });
    expect(secondPending).toMatchObject({ arguments: { rules: 2, basedOn: 1 } });
    expect(second).toMatchObject({ pendingSeq: secondPending.seq, result: { version: 2 } });
  });

  it('pages the versions newest first', async () => {
    const first = (await get('/admin/policy/versions?limit=1').expect(200)).body as { items: { version: number }[]; nextCursor: string };
    expect(first.items.map((item) => item.version)).toEqual([2]);
    const next = (await get(`/admin/policy/versions?limit=1&cursor=${first.nextCursor}`).expect(200)).body as {
      items: { version: number }[];
      nextCursor: string | null;
    };
    expect(next).toEqual({ items: [expect.objectContaining({ version: 1 })], nextCursor: null });
    expect((await get('/admin/policy/versions?cursor=bogus').expect(400)).body).toMatchObject({ code: 'VALIDATION.INVALID_CURSOR' });
  });
});
