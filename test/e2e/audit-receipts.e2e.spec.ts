import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { runAdminCommand } from '../../src/interfaces/cli/admin-command';
import { addTasks } from '../factories/tasks';
import { signUpAdmin } from '../support/admins';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { thenUndone } from '../support/audit-chain';
import { runVerifier } from '../support/audit-verifier';
import { useTestApp } from '../support/test-app';

const KEY = generateKeyPairSync('ed25519');
const PRIVATE_PEM = KEY.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
const PUBLIC_PEM = KEY.publicKey.export({ format: 'pem', type: 'spki' }) as string;
const ORIGIN = 'receipts.bridle.test/audit';

interface Receipt {
  seq: number;
  row: Record<string, unknown>;
  canonical: string;
  link: { position: number };
  inclusion: { treeSize: number };
  personal?: { arguments: unknown; salt: string };
}

/**
 * Receipts and export packs, checked as a person and an auditor would: by the
 * offline verifier (verifier/bridle-audit-verify.mjs) in a process of its own, with the public
 * key alone.
 */
describe('audit receipts and the offline verifier', () => {
  const sut = useTestApp({ env: { AUDIT_CHECKPOINT_ROWS: '100', AUDIT_SIGNING_KEY: PRIVATE_PEM, AUDIT_LOG_ORIGIN: ORIGIN } });
  let folder: string;
  let publicKey: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'bridle-receipts-'));
    publicKey = join(folder, 'audit-key.pem');
    await writeFile(publicKey, PUBLIC_PEM);
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  const database = () => sut.app.get(DataSource);
  const seal = () => sut.app.get(SealAuditChainUseCase).run({ waitForOtherSealer: true });
  const insertRows = (actorId: string, rows: number) =>
    database().query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
         SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'filler ' || n), 'succeeded' FROM generate_series(1, $2::int) n`,
      [actorId, rows],
    );
  const chat = async (user: SignedInUser, message: string, conversationId?: string) =>
    (await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200)).body as {
      conversationId: string;
      response: string;
    };
  const save = async (name: string, value: unknown) => {
    const file = join(folder, name);
    await writeFile(file, JSON.stringify(value));
    return file;
  };
  const exportPack = async (name: string, range: { from?: number; to?: number } = {}): Promise<string> => {
    const out = join(folder, name);
    const io = {
      operator: 'test',
      out: () => undefined,
      err: () => undefined,
      readStdin: () => Promise.resolve(''),
      readFile: () => Promise.resolve(''),
    };
    expect(await runAdminCommand({ name: 'audit-export', from: range.from, to: range.to, out }, sut.app, io)).toBe(0);
    return out;
  };

  it("gives a person a receipt for a confirmed delete that verifies offline, again after 10 000 rows and a new checkpoint, and after another person's erasure", async () => {
    const person = await signUpAndIn(sut.http);
    await addTasks(sut.http, person, 'Call the dentist', 'Buy milk');
    const asked = await chat(person, 'delete task 1');
    const done = await chat(person, 'yes delete', asked.conversationId);
    expect(done.response).toMatch(/removed/);

    const rows = await request(sut.http).get(`/api/${person.userId}/audit/receipts`).set(person.auth).expect(200);
    const deleted = (rows.body.items as { seq: number; tool: string; status: string }[]).find(
      (row) => row.tool === 'delete_task' && row.status === 'succeeded',
    )!;
    expect(deleted).toBeDefined();
    const receiptPath = `/api/${person.userId}/audit/receipts/${deleted.seq}`;

    // No checkpoint covers it yet (100 rows or an hour): a clear 409, and asking writes none.
    const early = await request(sut.http).get(receiptPath).set(person.auth).expect(409);
    expect(early.body.code).toBe('AUDIT.RECEIPT_NOT_YET');

    await insertRows(person.userId, 100);
    await seal();
    const response = await request(sut.http).get(`${receiptPath}?personal=true`).set(person.auth).expect(200);
    const receipt = response.body as Receipt;
    expect(receipt.row).toMatchObject({ seq: deleted.seq, tool: 'delete_task', status: 'succeeded', actorId: person.userId });
    expect(receipt.row).not.toHaveProperty('arguments');
    expect(receipt.canonical).not.toContain('Call the dentist');
    expect(receipt.personal).toMatchObject({ salt: expect.any(String), arguments: expect.any(Object) });
    const receiptFile = await save('receipt.json', receipt);
    const [audited] = await database().query<{ source: string; status: string; result: unknown }[]>(
      `SELECT source, status, result FROM audit_log WHERE actor_id = $1 AND tool = 'account.audit_receipt' AND status = 'succeeded' ORDER BY seq DESC LIMIT 1`,
      [person.userId],
    );
    expect(audited).toEqual({
      source: 'account',
      status: 'succeeded',
      result: { position: receipt.link.position, treeSize: receipt.inclusion.treeSize },
    });
    const early400 = await request(sut.http).get(`${receiptPath}?treeSize=1`).set(person.auth).expect(400);
    expect(early400.body).toMatchObject({ code: 'VALIDATION.INVALID_PROOF_REQUEST', message: expect.stringMatching(/treeSize/) });
    const checked = await runVerifier(['--receipt', receiptFile, '--public-key', publicKey]);
    expect(checked).toMatchObject({ status: 0, report: { ok: true, problems: [] } });

    // Another person cannot have it, nor learn it exists; an admin can, without the personal fields.
    const stranger = await signUpAndIn(sut.http);
    const hidden = await request(sut.http).get(`/api/${stranger.userId}/audit/receipts/${deleted.seq}`).set(stranger.auth).expect(404);
    expect(hidden.body.code).toBe('AUDIT.ROW_NOT_FOUND');
    const admin = await signUpAdmin(sut);
    const adminReceipt = await request(sut.http).get(`/admin/audit-logs/${deleted.seq}/receipt`).set(admin.auth).expect(200);
    expect(adminReceipt.body).not.toHaveProperty('personal');
    expect(adminReceipt.body.link).toEqual(receipt.link);

    // A receipt changed in any field no longer verifies.
    const forged = await save('forged.json', { ...receipt, row: { ...receipt.row, status: 'failed' } });
    expect(await runVerifier(['--receipt', forged, '--public-key', publicKey])).toMatchObject({ status: 1, report: { ok: false } });
    const otherKey = join(folder, 'other.pem');
    await writeFile(otherKey, generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }) as string);
    expect((await runVerifier(['--receipt', receiptFile, '--public-key', otherKey])).status).toBe(1);

    // 10 000 later rows, a new checkpoint, and another person's account erased.
    await insertRows(admin.userId, 10_000);
    await seal();
    await chat(stranger, 'add a task to call Ada Lovelace');
    await request(sut.http).delete(`/api/${stranger.userId}`).set(stranger.auth).expect(200);
    await insertRows(admin.userId, 100);
    await seal();

    const again = await runVerifier(['--receipt', receiptFile, '--public-key', publicKey]);
    expect(again).toMatchObject({ status: 0, report: { ok: true } });
    const newest = ((await request(sut.http).get(receiptPath).set(person.auth).expect(200)).body as Receipt).inclusion.treeSize;
    expect(newest).toBeGreaterThan(receipt.inclusion.treeSize + 10_000);
    const consistency = await request(sut.http)
      .get(`/api/${person.userId}/audit/consistency?from=${receipt.inclusion.treeSize}&to=${newest}`)
      .set(person.auth)
      .expect(200);
    const proofFile = await save('consistency.json', consistency.body);
    const carried = await runVerifier(['--receipt', receiptFile, '--public-key', publicKey, '--consistency', proofFile]);
    expect(carried).toMatchObject({ status: 0, report: { ok: true } });
    expect(carried.report.checked).toContainEqual(
      `checkpoint ${newest} extends checkpoint ${receipt.inclusion.treeSize}: the row is in it too`,
    );

    // The export pack after the erasure verifies too, with every checkpoint.
    const pack = await runVerifier([await exportPack('after-erasure'), '--public-key', publicKey]);
    expect(pack).toMatchObject({ status: 0, report: { ok: true, firstBadPosition: null } });
    expect(pack.report.erased).toBeGreaterThan(0);
    expect(pack.report.committed).toBeGreaterThan(10_000);
    expect(await readFile(join(folder, 'after-erasure', 'rows.ndjson'), 'utf8')).not.toMatch(/Lovelace|Call the dentist/);
  }, 180_000);

  it('names the first bad position of a row altered after export and of a cut tail, against the checkpoints the auditor kept', async () => {
    const admin = await signUpAdmin(sut);
    for (let batch = 0; batch < 4; batch++) {
      await insertRows(admin.userId, 120);
      await seal();
    }
    const first = await exportPack('first');
    const kept = join(first, 'checkpoints.ndjson');
    expect(await runVerifier([first, '--public-key', publicKey])).toMatchObject({ status: 0, report: { ok: true } });
    const sizes = (await readFile(kept, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { position: number }).position);
    const [altered, cut] = [sizes.at(-2)! - 30, sizes.at(-2)! + 1];

    // A row altered in the database (its tool renamed, around the triggers): named by its position.
    const alteredPack = await thenUndone(database(), async (manager) => {
      await manager.query(`SET LOCAL session_replication_role = replica`);
      await manager.query(`UPDATE audit_log SET tool = 'list_tasks' WHERE seq = (SELECT seq FROM audit_chain WHERE position = $1)`, [
        altered,
      ]);
      return exportPack('altered');
    });
    const afterAlter = await runVerifier([alteredPack, '--public-key', publicKey, '--checkpoint', kept]);
    expect(afterAlter).toMatchObject({ status: 1, report: { ok: false, firstBadPosition: altered } });

    // The tail cut from just after a checkpoint, links, rows and later checkpoints gone: named by the first missing position.
    const cutPack = await thenUndone(database(), async (manager) => {
      await manager.query(`SET LOCAL session_replication_role = replica`);
      await manager.query(`DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_chain WHERE position >= $1)`, [cut]);
      await manager.query(`DELETE FROM audit_chain WHERE position >= $1`, [cut]);
      await manager.query(`DELETE FROM audit_checkpoints WHERE position >= $1`, [cut]);
      return exportPack('cut');
    });
    // Alone, the cut pack is consistent with itself; the auditor's kept checkpoints name the cut.
    expect(await runVerifier([cutPack, '--public-key', publicKey])).toMatchObject({ status: 0 });
    const afterCut = await runVerifier([cutPack, '--public-key', publicKey, '--checkpoint', kept]);
    expect(afterCut).toMatchObject({ status: 1, report: { ok: false, firstBadPosition: cut } });

    // Untouched, the log still extends every kept checkpoint, and a consistency proof between two of them verifies.
    const now = await runVerifier([await exportPack('now'), '--public-key', publicKey, '--checkpoint', kept]);
    expect(now).toMatchObject({ status: 0, report: { ok: true } });
    expect(now.report.checked).toContainEqual(`kept checkpoint ${sizes.at(-1)}: the log extends it`);

    // A range from the middle to no checkpoint's size: the tree starts from the hashes left of it, the tail is signed by a consistency proof.
    const [from, to] = [sizes.at(-3)! - 17, sizes.at(-2)! + 13];
    // The auditor's two newest kept checkpoints: one inside the range, one its tail reaches.
    const reached = join(folder, 'reached.ndjson');
    await writeFile(reached, (await readFile(kept, 'utf8')).trimEnd().split('\n').slice(-2).join('\n'));
    const middle = await runVerifier([await exportPack('middle', { from, to }), '--public-key', publicKey, '--checkpoint', reached]);
    expect(middle.report.problems).toEqual([]);
    expect(middle).toMatchObject({ status: 0, report: { ok: true, rows: to - from + 1 } });
    expect(middle.report.checked).toContainEqual(`rows up to ${to} are in checkpoint ${sizes.at(-1)}'s tree (consistency proof)`);
    expect(middle.report.checked).toContainEqual(`kept checkpoint ${sizes.at(-2)}: the log extends it`);
    expect(middle.report.checked).toContainEqual(`kept checkpoint ${sizes.at(-1)}: the log extends it`);
    // One kept from before the range cannot be checked from it, and the verifier says so.
    const before = await runVerifier([join(folder, 'middle'), '--public-key', publicKey, '--checkpoint', kept]);
    expect(before).toMatchObject({ status: 1, report: { ok: false, firstBadPosition: null } });
    expect(before.report.problems).toContainEqual(expect.stringContaining(`kept checkpoint ${sizes[0]}: outside this pack's range`));
  }, 120_000);
});
