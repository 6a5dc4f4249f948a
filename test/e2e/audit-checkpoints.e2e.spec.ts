import { spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { signUpAdmin } from '../support/admins';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { ROOT, useBuiltService } from '../support/built-service';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

const OUT_DIR = join(ROOT, 'dist-test-audit-checkpoints');
const KEY = generateKeyPairSync('ed25519');
const PRIVATE_PEM = KEY.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
const PUBLIC_SPKI = KEY.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

interface DigestLine {
  position: number;
  seq: number;
  headHash: string;
  time: string;
  keyId: string;
  signature: string;
  publicKey: string;
}

/** Signed checkpoints over HTTP and through the operator's built command, with the operator's own key. */
describe('signed audit checkpoints', () => {
  useBuiltService(OUT_DIR);
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'bridle-digest-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));
  const sut = useTestApp({ env: { AUDIT_CHECKPOINT_ROWS: '100', AUDIT_SIGNING_KEY: PRIVATE_PEM } });
  let admin: SignedInUser;

  beforeAll(async () => {
    admin = await signUpAdmin(sut);
    await sut.app.get(DataSource).query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
         SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'succeeded' FROM generate_series(1, 250) n`,
      [admin.userId],
    );
  });

  const get = (path: string, user: SignedInUser = admin) => request(sut.http).get(path).set(user.auth);
  const digestOf = (text: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as DigestLine);

  it('verifies from the newest checkpoint, all of it with full=true, and exports the checkpoints as signed NDJSON, audited', async () => {
    const fromCheckpoint = await get('/admin/audit-logs/verify').expect(200);
    // The walk's last link: the periodic sealer may link the read's own audit row right after it.
    const [{ head }] = await sut.app
      .get(DataSource)
      .query<{ head: string }[]>(`SELECT position AS head FROM audit_chain WHERE hash = $1`, [fromCheckpoint.body.headHash]);
    const position = fromCheckpoint.body.from as number;
    expect(position).toBeGreaterThanOrEqual(250);
    expect(fromCheckpoint.body).toEqual({
      verified: true,
      checkedRows: Number(head) - position + 1,
      firstBadSeq: null,
      headHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      unsealedRows: 0,
      from: position,
      checkpoint: { position, seq: expect.any(Number), headHash: expect.stringMatching(/^[0-9a-f]{64}$/), time: expect.any(String) },
      firstBadCheckpoint: null,
      firstUnexplainedErasure: null,
    });
    const full = await get('/admin/audit-logs/verify?full=true').expect(200);
    expect(full.body).toMatchObject({ verified: true, from: 1, checkpoint: null, firstBadCheckpoint: null });
    expect(full.body.checkedRows).toBeGreaterThan(Number(head));
    const wrong = await get('/admin/audit-logs/verify?full=yes').expect(400);
    expect(wrong.body.code).toBe('VALIDATION.FAILED');

    const exported = await asText(get('/admin/audit-logs/checkpoints')).expect(200);
    expect(exported.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const digest = digestOf(exported.body as string);
    expect(digest.at(-1)).toMatchObject({ position, publicKey: PUBLIC_SPKI });
    const publicKey = createPublicKey({ key: Buffer.from(PUBLIC_SPKI, 'base64'), format: 'der', type: 'spki' });
    for (const line of digest) {
      const message = `bridle-audit-checkpoint:v1\n${line.position}\n${line.seq}\n${line.headHash}\n${line.time}`;
      expect(verify(null, Buffer.from(message), publicKey, Buffer.from(line.signature, 'base64'))).toBe(true);
    }

    const reads = (await get('/admin/audit-logs?source=admin&tool=admin.audit_logs.checkpoints').expect(200)).body.items as {
      status: string;
      result: unknown;
    }[];
    expect(reads.map((row) => [row.status, row.result])).toEqual([
      ['succeeded', { checkpoints: digest.length }],
      ['pending', null],
    ]);
    const someone = await signUpAndIn(sut.http);
    await get('/admin/audit-logs/checkpoints', someone).expect(403);
  });

  it("checks a digest file with the operator's command, and without a database; finds a tail cut after the export", async () => {
    await sut.close();
    const database: Record<string, string> =
      sut.db.settings.kind === 'embedded' ? { BRIDLE_DATA_DIR: sut.db.settings.dataDir } : { DATABASE_URL: sut.db.settings.url };
    const withDatabase = { ...database, AUDIT_SIGNING_KEY: PRIVATE_PEM };

    const exported = await command(['audit-checkpoints'], withDatabase);
    expect(exported).toMatchObject({ status: 0, stderr: '' });
    const digest = digestOf(exported.stdout);
    const file = join(folder, 'digest.ndjson');
    await writeFile(file, exported.stdout);

    // The auditor's machine: the file, no configuration, no database.
    const offline = await command(['audit-check-digest', file, '--public-key', PUBLIC_SPKI], {});
    expect(offline.status).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({ checked: digest.length, firstBad: null });
    const changed = join(folder, 'changed.ndjson');
    await writeFile(changed, exported.stdout.replace(digest[0].headHash, 'f'.repeat(64)));
    expect(await command(['audit-check-digest', changed], {})).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(`position ${digest[0].position} fails (bad_signature)`),
    });

    expect(await command(['audit-verify', '--against', file], withDatabase)).toMatchObject({ status: 0, stderr: 'Verified.\n' });

    // The owner cuts the tail from the newest checkpoint on, with the checkpoints that covered it.
    const cut = digest.at(-1)!.position;
    const opened = await openDatabase(sut.db.settings);
    try {
      for (const table of ['audit_log', 'audit_chain', 'audit_checkpoints'])
        await opened.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
      await opened.query(`DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_chain WHERE position >= $1)`, [cut]);
      await opened.query(`DELETE FROM audit_chain WHERE position >= $1`, [cut]);
      await opened.query(`DELETE FROM audit_checkpoints WHERE position >= $1`, [cut]);
      for (const table of ['audit_log', 'audit_chain', 'audit_checkpoints']) await opened.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
    } finally {
      await opened.destroy();
    }

    // The chain left holds, and so does the full walk; the digest does not.
    expect((await command(['audit-verify', '--full'], withDatabase)).status).toBe(0);
    const against = await command(['audit-verify', '--against', file], withDatabase);
    expect(against.status).toBe(1);
    expect(JSON.parse(against.stdout.trimEnd().split('\n')[1])).toEqual({
      against: file,
      checkpoints: digest.length,
      firstBad: { position: cut, seq: digest.at(-1)!.seq, problem: 'not_in_chain' },
    });

    // A row numbered 0 slipped in by the owner, its check dropped: the command's full walk names it.
    const forged = await openDatabase(sut.db.settings);
    try {
      await forged.query(`ALTER TABLE audit_log DISABLE TRIGGER USER`);
      await forged.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_numbered`);
      await forged.query(
        `INSERT INTO audit_log (seq, source, actor_id, tool, arguments, status) VALUES (0, 'mcp', $1, 'delete_task', '{}', 'succeeded')`,
        [admin.userId],
      );
      await forged.query(`ALTER TABLE audit_log ENABLE TRIGGER USER`);
    } finally {
      await forged.destroy();
    }
    const full = await command(['audit-verify', '--full'], withDatabase);
    expect(full).toMatchObject({ status: 1, stderr: expect.stringMatching(/^NOT verified/) });
    expect(JSON.parse(full.stdout.trimEnd().split('\n')[0])).toMatchObject({ verified: false, firstBadSeq: 0 });
  }, 120_000);

  function command(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [join(OUT_DIR, 'admin.js'), ...args], {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
  }
});
