import { generateKeyPairSync, verify } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { runAdminCommand } from '../../src/interfaces/cli/admin-command';
import { fromHex, type Hash, verifyConsistency, verifyInclusion } from '../../src/domain/audit/merkle';
import { ed25519KeyHash, fromBase64, parseCheckpointNote, type ParsedCheckpointNote } from '../../src/domain/audit/signed-note';
import { merkleHasher, sha256 } from '../../src/infrastructure/security/sha256';
import { signUpAdmin } from '../support/admins';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';
import { asText } from '../support/text-body';

const KEY = generateKeyPairSync('ed25519');
const PRIVATE_PEM = KEY.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
const RAW_PUBLIC_KEY = KEY.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
const ORIGIN = 'proofs.bridle.test/audit';

/** An auditor's check of a checkpoint note, with nothing but the public key they were given: the C2SP key hash and the Ed25519 signature. */
function checkedNote(text: string): ParsedCheckpointNote {
  const note = parseCheckpointNote(text);
  if (note === null) throw new Error(`not a checkpoint note: ${text}`);
  expect(note.origin).toBe(ORIGIN);
  const [line] = note.signatures;
  expect(line.name).toBe(ORIGIN);
  expect(Buffer.from(line.keyHash)).toEqual(Buffer.from(ed25519KeyHash(sha256, ORIGIN, RAW_PUBLIC_KEY)));
  expect(verify(null, Buffer.from(note.body), KEY.publicKey, line.signature)).toBe(true);
  return note;
}

const hashes = (proof: string[]): Hash[] => proof.map((hash) => fromBase64(hash)!);

/** Inclusion and consistency proofs over HTTP, checked as an auditor would: with the domain's RFC 9162 verifier and the public key. */
describe('audit proofs', () => {
  const sut = useTestApp({ env: { AUDIT_CHECKPOINT_ROWS: '100', AUDIT_SIGNING_KEY: PRIVATE_PEM, AUDIT_LOG_ORIGIN: ORIGIN } });
  let admin: SignedInUser;
  const get = (path: string, user: SignedInUser = admin) => request(sut.http).get(path).set(user.auth);
  const insertRows = (rows: number) =>
    sut.app.get(DataSource).query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
         SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'succeeded' FROM generate_series(1, $2::int) n`,
      [admin.userId, rows],
    );
  /** The checkpoints' sizes, oldest first, after sealing what is queued (verify seals first). */
  const checkpointSizes = async (): Promise<number[]> => {
    await get('/admin/audit-logs/verify').expect(200);
    const digest = await asText(get('/admin/audit-logs/checkpoints')).expect(200);
    return (digest.body as string)
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { position: number }).position);
  };

  beforeAll(async () => {
    admin = await signUpAdmin(sut);
    await insertRows(250);
  });

  it('proves a row is in a checkpoint, and still after 250 more rows, against the later checkpoint and by consistency', async () => {
    const [first] = await checkpointSizes();
    const old = await get(`/admin/audit-logs/proofs/inclusion?position=5&treeSize=${first}`).expect(200);
    const [link] = await sut.app
      .get(DataSource)
      .query<{ seq: string; hash: string }[]>(`SELECT seq, hash FROM audit_chain WHERE position = 5`);
    expect(old.body).toEqual({
      position: 5,
      seq: Number(link.seq),
      linkHash: link.hash,
      leafIndex: 4,
      treeSize: first,
      leafHash: Buffer.from(merkleHasher.leaf(fromHex(link.hash))).toString('base64'),
      proof: expect.any(Array),
      rootHash: expect.any(String),
      checkpoint: expect.stringMatching(new RegExp(`^${ORIGIN}\\n${first}\\n`)),
    });
    const oldNote = checkedNote(old.body.checkpoint);
    const leaf = fromBase64(old.body.leafHash)!;
    expect(verifyInclusion(merkleHasher, 4, first, leaf, hashes(old.body.proof), oldNote.rootHash)).toBe(true);
    expect(old.body.proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(first)));

    await insertRows(250);
    const sizes = await checkpointSizes();
    const newest = sizes[sizes.length - 1];
    expect(newest).toBeGreaterThanOrEqual(first + 250);
    // The receipt kept from before is unchanged and still verifies against its own checkpoint…
    expect(verifyInclusion(merkleHasher, 4, first, leaf, hashes(old.body.proof), oldNote.rootHash)).toBe(true);
    // …and that checkpoint's log is a prefix of the newest one's…
    const consistency = await get(`/admin/audit-logs/proofs/consistency?from=${first}&to=${newest}`).expect(200);
    expect(consistency.body).toEqual({
      from: first,
      to: newest,
      proof: expect.any(Array),
      fromCheckpoint: old.body.checkpoint,
      toCheckpoint: expect.any(String),
    });
    const newNote = checkedNote(consistency.body.toCheckpoint);
    expect(verifyConsistency(merkleHasher, first, newest, hashes(consistency.body.proof), oldNote.rootHash, newNote.rootHash)).toBe(true);
    // …and the newest checkpoint (the default) proves the same row.
    const now = await get('/admin/audit-logs/proofs/inclusion?position=5').expect(200);
    expect(now.body).toMatchObject({
      leafIndex: 4,
      treeSize: newest,
      leafHash: old.body.leafHash,
      checkpoint: consistency.body.toCheckpoint,
    });
    expect(verifyInclusion(merkleHasher, 4, newest, leaf, hashes(now.body.proof), newNote.rootHash)).toBe(true);
    // A proof is for its row only.
    expect(verifyInclusion(merkleHasher, 5, newest, leaf, hashes(now.body.proof), newNote.rootHash)).toBe(false);

    // The operator's command gives the same proofs.
    const out: string[] = [];
    const io = {
      operator: 'test',
      out: (line: string) => out.push(line),
      err: () => undefined,
      readStdin: () => Promise.resolve(''),
      readFile: () => Promise.resolve(''),
    };
    expect(await runAdminCommand({ name: 'audit-proof', kind: 'inclusion', position: 5, treeSize: newest }, sut.app, io)).toBe(0);
    expect(await runAdminCommand({ name: 'audit-proof', kind: 'consistency', from: first, to: newest }, sut.app, io)).toBe(0);
    expect(out.map((line) => JSON.parse(line) as unknown)).toEqual([now.body, consistency.body]);
  });

  it('refuses, naming the field, sizes no checkpoint has, a position beyond the tree, and what is not a whole number; audited', async () => {
    const sizes = await checkpointSizes();
    const [first] = sizes;
    const newest = sizes[sizes.length - 1];
    const refused = async (path: string, field: string) => {
      const response = await get(path).expect(400);
      expect(response.body.message).toMatch(new RegExp(`\\b${field}\\b`));
      return response.body as { code: string };
    };
    expect((await refused(`/admin/audit-logs/proofs/inclusion?position=5&treeSize=${first + 1}`, 'treeSize')).code).toBe(
      'VALIDATION.INVALID_PROOF_REQUEST',
    );
    expect((await refused(`/admin/audit-logs/proofs/inclusion?position=${first + 1}&treeSize=${first}`, 'position')).code).toBe(
      'VALIDATION.INVALID_PROOF_REQUEST',
    );
    expect((await refused('/admin/audit-logs/proofs/inclusion?position=1.5', 'position')).code).toBe('VALIDATION.FAILED');
    expect((await refused('/admin/audit-logs/proofs/inclusion?position=0', 'position')).code).toBe('VALIDATION.FAILED');
    expect((await refused('/admin/audit-logs/proofs/inclusion', 'position')).code).toBe('VALIDATION.FAILED');
    expect((await refused('/admin/audit-logs/proofs/inclusion?position=1&treeSize=x', 'treeSize')).code).toBe('VALIDATION.FAILED');
    expect((await refused(`/admin/audit-logs/proofs/consistency?from=${first}&to=${newest + 1}`, 'to')).code).toBe(
      'VALIDATION.INVALID_PROOF_REQUEST',
    );
    expect((await refused(`/admin/audit-logs/proofs/consistency?from=${first - 1}&to=${newest}`, 'from')).code).toBe(
      'VALIDATION.INVALID_PROOF_REQUEST',
    );
    expect((await refused(`/admin/audit-logs/proofs/consistency?from=${newest}&to=${first}`, 'from')).code).toBe(
      'VALIDATION.INVALID_PROOF_REQUEST',
    );
    expect((await refused(`/admin/audit-logs/proofs/consistency?from=${first}`, 'to')).code).toBe('VALIDATION.FAILED');
    // Not an admin: 403, as every admin route.
    await get(`/admin/audit-logs/proofs/inclusion?position=1`, await signUpAndIn(sut.http)).expect(403);

    const [{ rows }] = await sut.app.get(DataSource).query<{ rows: { tool: string; status: string; arguments: unknown }[] }[]>(
      `SELECT json_agg(json_build_object('tool', tool, 'status', status, 'arguments', arguments) ORDER BY seq) AS rows
         FROM audit_log WHERE actor_id = $1 AND tool LIKE 'admin.audit_logs.%_proof'`,
      [admin.userId],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { tool: 'admin.audit_logs.inclusion_proof', status: 'succeeded', arguments: { position: 5 } },
        { tool: 'admin.audit_logs.inclusion_proof', status: 'rejected', arguments: { position: 5, treeSize: first + 1 } },
        { tool: 'admin.audit_logs.consistency_proof', status: 'rejected', arguments: { from: newest, to: first } },
      ]),
    );
  });
});
