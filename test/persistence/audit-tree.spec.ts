import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { linkLeafHash, rootHash, rootSubtrees, toHex } from '../../src/domain/audit/merkle';
import { buildTiles, hashesFromTiles, tilesOf } from '../../src/domain/audit/merkle-tiles';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { AuditMerkleTree1767981600000 } from '../../src/infrastructure/persistence/migrations/1767981600000-audit-merkle-tree';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditTree } from '../../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { merkleHasher } from '../../src/infrastructure/security/sha256';
import { createTestDatabase, type TestDatabase, usingPostgresServer } from '../support/test-database';

/** Every tile as stored, hex, keyed by level/index. */
async function storedTiles(database: DataSource): Promise<Record<string, string>> {
  const rows = await database.query<{ level: number; idx: string; hashes: Uint8Array }[]>(
    `SELECT level, idx, hashes FROM audit_tree_tiles ORDER BY level, idx`,
  );
  return Object.fromEntries(rows.map((row) => [`${row.level}/${row.idx}`, toHex(row.hashes)]));
}

/** The tiles of the tree over the chain's links as they are, built in memory by the reference (buildTiles). */
async function expectedTiles(database: DataSource): Promise<Record<string, string>> {
  const links = await database.query<{ hash: string }[]>(`SELECT hash FROM audit_chain ORDER BY position`);
  const tiles = buildTiles(
    merkleHasher,
    links.map((link) => linkLeafHash(merkleHasher, link.hash)),
  );
  return Object.fromEntries([...tiles].map(([name, hashes]) => [name, toHex(hashes)]));
}

describe(`the audit Merkle tree's tiles on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDb: TestDatabase;
  let database: DataSource;
  const actorId = randomUUID();
  const insertRows = (rows: number) =>
    database.query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
       SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'task ' || n), 'succeeded' FROM generate_series(1, $2::int) n`,
      [actorId, rows],
    );

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase(testDb.settings);
  });

  afterAll(async () => {
    await database?.destroy();
    await testDb?.dispose();
  });

  it('are, after every batch the sealer seals, the tiles of the tree over the links', async () => {
    const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(database));
    // Batches that end inside a tile, on its edge, and across several (a tile holds 256 hashes;
    // a sealing batch at most 1 000 rows), so partial tiles are rewritten and level 1 fills.
    for (const rows of [1, 254, 1, 1, 300, 1_500, 7]) {
      await insertRows(rows);
      await seal.run();
      expect(await storedTiles(database)).toEqual(await expectedTiles(database));
    }
    const tree = new PostgresAuditTree(database);
    expect(await tree.size()).toBe(2_064);
    // The root from the tiles, read as a proof reads them, is the reference's.
    const subtrees = rootSubtrees(2_064);
    const root = rootHash(merkleHasher, 2_064, hashesFromTiles(merkleHasher, await tree.tiles(tilesOf(subtrees))));
    const links = await database.query<{ hash: string }[]>(`SELECT hash FROM audit_chain ORDER BY position`);
    const reference = hashesFromTiles(
      merkleHasher,
      buildTiles(
        merkleHasher,
        links.map((link) => linkLeafHash(merkleHasher, link.hash)),
      ),
    );
    expect(toHex(root)).toBe(toHex(rootHash(merkleHasher, 2_064, reference)));
  }, 120_000);

  it('only grow: a stored hash cannot be changed or a tile deleted, and the sealer refuses a tree that parted from the chain', async () => {
    await expect(
      database.query(`UPDATE audit_tree_tiles SET hashes = '\\x00'::bytea || substring(hashes FROM 2) WHERE level = 0 AND idx = 0`),
    ).rejects.toThrow(/only grows/);
    await expect(database.query(`DELETE FROM audit_tree_tiles WHERE level = 0 AND idx = 8`)).rejects.toThrow();
    // The tables' owner removes the last tile's rows around the triggers: sealing stops rather than build a tree that is not the chain's.
    await database.query(`ALTER TABLE audit_tree_tiles DISABLE TRIGGER USER`);
    await database.query(`DELETE FROM audit_tree_tiles WHERE level = 0 AND idx = 8`);
    await database.query(`ALTER TABLE audit_tree_tiles ENABLE TRIGGER USER`);
    await insertRows(1);
    await expect(new SealAuditChainUseCase(new PostgresAuditChainSealer(database)).run()).rejects.toThrow(
      /audit tree: level 0 holds 2048 hashes where 2064/,
    );
    // Nothing of the batch was kept: the row is still queued.
    expect(await database.query(`SELECT count(*)::int AS n FROM audit_unsealed`)).toEqual([{ n: 1 }]);
  });

  it('are built by the migration over a chain sealed before it, in batches', async () => {
    const other = await createTestDatabase();
    const before = await openDatabase(other.settings);
    const migration = new AuditMerkleTree1767981600000();
    /** A migration's step on a connection of its own, released after (PGlite has one). */
    const step = async (work: (runner: QueryRunner) => Promise<void>) => {
      const runner = before.createQueryRunner();
      try {
        await runner.startTransaction();
        await work(runner);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
    };
    try {
      await step((runner) => migration.down(runner));
      // Sealed by the sealer of before the tree, in three batches.
      await before.query(
        `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
         SELECT 'chat', $1, 'list_tasks', '{}'::jsonb, 'succeeded' FROM generate_series(1, 2500)`,
        [actorId],
      );
      await new SealAuditChainUseCase(new PostgresAuditChainSealer(before)).run();
      expect(await before.query(`SELECT to_regclass('audit_tree_tiles') AS t`)).toEqual([{ t: null }]);

      AuditMerkleTree1767981600000.backfillBatch = 700;
      await step((runner) => migration.up(runner));
      expect(await storedTiles(before)).toEqual(await expectedTiles(before));
      expect(await new PostgresAuditTree(before).size()).toBe(2_500);
      // And the sealer goes on from there.
      await before.query(
        `INSERT INTO audit_log (source, actor_id, tool, arguments, status) VALUES ('chat', $1, 'list_tasks', '{}', 'succeeded')`,
        [actorId],
      );
      await new SealAuditChainUseCase(new PostgresAuditChainSealer(before)).run();
      expect(await storedTiles(before)).toEqual(await expectedTiles(before));
    } finally {
      AuditMerkleTree1767981600000.backfillBatch = undefined;
      await before.destroy();
      await other.dispose();
    }
  }, 120_000);
});
