import { merkleHasher } from '../../src/infrastructure/security/sha256';
import { PostgresAuditTree } from '../../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { createPublicKey, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { AdminReadRecorder } from '../../src/application/audit/admin-read-recorder';
import { AuditCheckpoints } from '../../src/application/audit/audit-checkpoints';
import { CheckAuditDigestUseCase } from '../../src/application/audit/check-audit-digest.use-case';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { VerifyAuditChainUseCase } from '../../src/application/audit/verify-audit-chain.use-case';
import { type CheckpointInterval, parseDigestLine, type SignedCheckpoint, toDigestLine } from '../../src/domain/audit/checkpoint';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { Ed25519CheckpointSigner, Ed25519SignatureVerifier } from '../../src/infrastructure/security/ed25519-checkpoint-keys';
import { FixedClock } from '../fakes/fixed-clock';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { createTestDatabase, usingPostgresServer } from '../support/test-database';

const newKey = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

/** The chain, its checkpoints and their signing key, on a database of the suite's own. */
async function chainOn(interval: CheckpointInterval) {
  const testDb = await createTestDatabase();
  const database = await openDatabase(testDb.settings);
  // Now, as the database's clock says: the first checkpoint's interval starts at its first link's sealing.
  const started = new Date();
  const clock = new FixedClock(started);
  const signer = new Ed25519CheckpointSigner(newKey());
  const verifier = new Ed25519SignatureVerifier();
  const checkpoints = new AuditCheckpoints(signer, verifier, clock, { interval, origin: 'bridle.test/audit' }, merkleHasher);
  const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(database), checkpoints);
  const reader = new PostgresAuditReader(database);
  const recorder = new AdminReadRecorder(new PostgresAuditLog(database, new AuditAppender(new RecordingMetrics())), clock);
  const sut = new VerifyAuditChainUseCase(reader, recorder, seal, checkpoints, new PostgresAuditTree(database), merkleHasher);
  const actorId = randomUUID();
  /** Rows through audit_log's own insert, so its queueing trigger runs: one statement for all. */
  const insertRows = (rows: number) =>
    database.query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
       SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'buy milk ' || n), 'succeeded' FROM generate_series(1, $2::int) n`,
      [actorId, rows],
    );
  const stored = async (): Promise<SignedCheckpoint[]> => {
    const all: SignedCheckpoint[] = [];
    for await (const checkpoint of reader.checkpoints()) all.push(checkpoint);
    return all;
  };
  /** What the owner of the tables can do: statements with the append-only triggers off. */
  const asOwner = async (statements: readonly string[]) => {
    const tables = ['audit_log', 'audit_chain', 'audit_checkpoints'];
    for (const table of tables) await database.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
    try {
      for (const statement of statements) await database.query(statement);
    } finally {
      for (const table of tables) await database.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
    }
  };
  const close = async () => {
    await database.destroy();
    await testDb.dispose();
  };
  return { database, started, clock, signer, seal, reader, sut, insertRows, stored, asOwner, close };
}

describe(`signed audit checkpoints on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  describe('writing them', () => {
    let chain: Awaited<ReturnType<typeof chainOn>>;

    beforeAll(async () => {
      chain = await chainOn({ rows: 250, ms: 60_000 });
    });

    afterAll(() => chain?.close());

    it('signs the head after so many rows or so long, whichever first, in a documented message', async () => {
      await chain.insertRows(600);
      expect(await chain.seal.run()).toBe(600);
      // 600 rows in one batch: one checkpoint, at the batch's end.
      let checkpoints = await chain.stored();
      expect(checkpoints.map((checkpoint) => checkpoint.position)).toEqual([600]);

      // 100 more rows and little time: none.
      await chain.insertRows(100);
      chain.clock.advance(59_000);
      await chain.seal.run();
      expect((await chain.stored()).length).toBe(1);
      // The interval passes: the next sealing, with nothing to seal, signs the head.
      chain.clock.advance(1_000);
      expect(await chain.seal.run()).toBe(0);
      checkpoints = await chain.stored();
      expect(checkpoints.map((checkpoint) => checkpoint.position)).toEqual([600, 700]);
      // Nothing new since: none, however long it has been.
      chain.clock.advance(3_600_000);
      await chain.seal.run();
      expect((await chain.stored()).length).toBe(2);

      const [link] = await chain.database.query<{ seq: string; hash: string }[]>(`SELECT seq, hash FROM audit_chain WHERE position = 700`);
      const newest = checkpoints[1];
      expect(newest).toEqual({
        position: 700,
        seq: Number(link.seq),
        headHash: link.hash,
        createdAt: new Date(chain.started.getTime() + 60_000),
        keyId: chain.signer.keyId,
        publicKey: chain.signer.publicKey,
        signature: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/),
        tree: { size: 700, rootHash: expect.stringMatching(/^[0-9a-f]{64}$/), note: expect.stringMatching(/^bridle\.test\/audit\n700\n/) },
      });
      // Anyone can check it with the public key and the message as the docs spell it.
      const time = new Date(chain.started.getTime() + 60_000).toISOString();
      const message = `bridle-audit-checkpoint:v1\n700\n${link.seq}\n${link.hash}\n${time}`;
      const publicKey = createPublicKey({ key: Buffer.from(newest.publicKey, 'base64'), format: 'der', type: 'spki' });
      expect(verify(null, Buffer.from(message), publicKey, Buffer.from(newest.signature, 'base64'))).toBe(true);
      expect(verify(null, Buffer.from(message.replace('\n700\n', '\n699\n')), publicKey, Buffer.from(newest.signature, 'base64'))).toBe(
        false,
      );
    });

    it('refuses UPDATE, DELETE and TRUNCATE of a checkpoint', async () => {
      await expect(chain.database.query(`UPDATE audit_checkpoints SET seq = seq`)).rejects.toThrow(/append-only/);
      await expect(chain.database.query(`DELETE FROM audit_checkpoints`)).rejects.toThrow(/append-only/);
      await expect(chain.database.query(`TRUNCATE audit_checkpoints`)).rejects.toThrow(/append-only/);
    });

    it('finds a checkpoint not signed by the configured key, from the newest and in the full walk', async () => {
      // Sealed without a checkpoint; the table's owner writes one of their own, signed with another key.
      await chain.insertRows(10);
      await new SealAuditChainUseCase(new PostgresAuditChainSealer(chain.database)).run();
      const forger = new Ed25519CheckpointSigner(newKey());
      const [head] = await chain.database.query<{ position: string; seq: string; hash: string }[]>(
        `SELECT position, seq, hash FROM audit_chain ORDER BY position DESC LIMIT 1`,
      );
      const fields = { position: Number(head.position), seq: Number(head.seq), headHash: head.hash, createdAt: new Date() };
      const time = fields.createdAt.toISOString();
      const signature = forger.sign(`bridle-audit-checkpoint:v1\n${head.position}\n${head.seq}\n${head.hash}\n${time}`);
      await chain.database.query(
        `INSERT INTO audit_checkpoints (position, seq, head_hash, created_at, key_id, public_key, signature) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [fields.position, fields.seq, fields.headHash, time, forger.keyId, forger.publicKey, signature],
      );

      expect(await chain.sut.verify(false)).toMatchObject({ verified: false, from: 710, firstBadCheckpoint: 710 });
      expect(await chain.sut.verify(true)).toMatchObject({ verified: false, from: 1, checkedRows: 710, firstBadCheckpoint: 710 });
    });
  });

  describe('100 000 rows', () => {
    let chain: Awaited<ReturnType<typeof chainOn>>;
    /** The digest exported before any tampering, as the file an auditor keeps. */
    let digest: SignedCheckpoint[];
    const seqAt = async (position: number) =>
      Number((await chain.database.query<{ seq: string }[]>(`SELECT seq FROM audit_chain WHERE position = $1`, [position]))[0].seq);

    beforeAll(async () => {
      chain = await chainOn({ rows: 10_000, ms: 60 * 60_000 });
      await chain.insertRows(100_000);
      expect(await chain.seal.run()).toBe(100_000);
      await chain.insertRows(5);
      await chain.seal.run();
      // Through the file format, as the operator's command writes it and an auditor reads it.
      const file = (await chain.stored()).map((checkpoint) => JSON.stringify(toDigestLine(checkpoint))).join('\n');
      digest = file.split('\n').map((line) => parseDigestLine(line)!);
    }, 600_000);

    afterAll(() => chain?.close());

    it('verifies from the newest checkpoint by default, the whole chain and every checkpoint on request', async () => {
      expect(digest.map((checkpoint) => checkpoint.position)).toEqual(Array.from({ length: 10 }, (_, i) => (i + 1) * 10_000));

      const fromCheckpoint = await chain.sut.verify(false);
      // The checkpoint's link and the 5 after it.
      expect(fromCheckpoint).toEqual({
        verified: true,
        checkedRows: 6,
        firstBadSeq: null,
        headHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        unsealedRows: 0,
        from: 100_000,
        checkpoint: { position: 100_000, seq: digest[9].seq, headHash: digest[9].headHash, createdAt: digest[9].createdAt },
        firstBadCheckpoint: null,
        firstUnexplainedErasure: null,
      });
      const full = await chain.sut.verify(true);
      expect(full).toEqual({ ...fromCheckpoint, checkedRows: 100_005, from: 1, checkpoint: null });

      const offline = new CheckAuditDigestUseCase(new Ed25519SignatureVerifier()).execute(digest, chain.signer.publicKey);
      expect(offline).toEqual({ checked: 10, keyIds: [chain.signer.keyId], firstBad: null });
      expect(await chain.sut.checkAgainstChain(digest)).toEqual({ checked: 10, firstBad: null });
    }, 300_000);

    it('finds a digest line changed after export, without the database', () => {
      const changed = digest.map((checkpoint, i) => (i === 3 ? { ...checkpoint, headHash: 'f'.repeat(64) } : checkpoint));
      const check = new CheckAuditDigestUseCase(new Ed25519SignatureVerifier());
      expect(check.execute(changed).firstBad).toEqual({ position: 40_000, problem: 'bad_signature' });
      expect(check.execute(digest, new Ed25519CheckpointSigner(newKey()).publicKey).firstBad).toEqual({
        position: 10_000,
        problem: 'untrusted_key',
      });
    });

    it('finds a row altered before the checkpoint in the full walk (the default walk starts after it)', async () => {
      const seq = await seqAt(5_000);
      const [{ original }] = await chain.database.query<{ original: string }[]>(
        `SELECT arguments::text AS original FROM audit_log WHERE seq = $1`,
        [seq],
      );
      await chain.asOwner([`UPDATE audit_log SET arguments = '{"title":"forged"}' WHERE seq = ${seq}`]);

      expect(await chain.sut.verify(true)).toMatchObject({ verified: false, firstBadSeq: seq, firstBadCheckpoint: null });
      expect(await chain.sut.verify(false)).toMatchObject({ verified: true, from: 100_000 });

      await chain.asOwner([`UPDATE audit_log SET arguments = '${original}'::jsonb WHERE seq = ${seq}`]);
      expect(await chain.sut.verify(true)).toMatchObject({ verified: true });
    }, 300_000);

    it('finds a tail cut after the digest was exported, checkpoints and all, only against the digest', async () => {
      // The owner deletes the last 3 005 rows, their links and the checkpoints that covered them.
      await chain.asOwner([
        `DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_chain WHERE position > 97000)`,
        `DELETE FROM audit_chain WHERE position > 97000`,
        `DELETE FROM audit_checkpoints WHERE position > 97000`,
      ]);

      // What is left is a shorter chain that holds, with checkpoints that hold.
      expect(await chain.sut.verify(false)).toMatchObject({ verified: true, from: 90_000 });
      expect(await chain.sut.verify(true)).toMatchObject({ verified: true, checkedRows: 97_000 });
      // The exported checkpoint at 100 000 is no longer in the chain.
      expect(await chain.sut.checkAgainstChain(digest)).toEqual({
        checked: 10,
        firstBad: { position: 100_000, seq: digest[9].seq, problem: 'not_in_chain' },
      });
    }, 300_000);

    it('finds a row altered and the chain rewritten after it: by the checkpoints, and by the digest once those are gone', async () => {
      const seq = await seqAt(85_000);
      // Altered, then every link from it re-hashed, as the owner who knows the hash would.
      await chain.asOwner([
        `UPDATE audit_log SET arguments = '{"title":"rewritten"}' WHERE seq = ${seq}`,
        `DO $$
         DECLARE
           l record;
           previous char(64) := (SELECT hash FROM audit_chain WHERE position = 84999);
         BEGIN
           FOR l IN SELECT c.position, a AS r FROM audit_chain c JOIN audit_log a ON a.seq = c.seq WHERE c.position >= 85000 ORDER BY c.position LOOP
             UPDATE audit_chain SET prev_hash = previous, hash = audit_row_hash(previous, l.r) WHERE position = l.position
               RETURNING hash INTO previous;
           END LOOP;
         END $$`,
      ]);
      expect((await chain.reader.verify()).verified).toBe(true);

      // The checkpoint at 90 000 still carries the signed hash, which the chain no longer has.
      expect(await chain.sut.verify(true)).toMatchObject({ verified: false, firstBadCheckpoint: 90_000, firstBadSeq: digest[8].seq });
      expect(await chain.sut.verify(false)).toMatchObject({ verified: false, from: 90_000, firstBadCheckpoint: 90_000 });

      // Nor can the owner sign a new one; deleting it leaves the exported digest to find it.
      await chain.asOwner([`DELETE FROM audit_checkpoints WHERE position >= 90000`]);
      // Before the Merkle tree this passed. The tree's tiles still hold the links as they were
      // sealed (they only grow), so the checkpoint this verify's sealing signs at the head has
      // their root, and the tree rebuilt from the rewritten links does not.
      expect(await chain.sut.verify(true)).toMatchObject({ verified: false, firstBadCheckpoint: 97_000 });
      expect((await chain.sut.checkAgainstChain(digest)).firstBad).toEqual({
        position: 90_000,
        seq: digest[8].seq,
        problem: 'not_in_chain',
      });
    }, 300_000);
  });
});
