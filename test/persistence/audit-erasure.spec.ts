import { merkleHasher } from '../../src/infrastructure/security/sha256';
import { PostgresAuditTree } from '../../src/infrastructure/persistence/repositories/postgres-audit-tree';
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { DataSource } from 'typeorm';
import { AdminReadRecorder } from '../../src/application/audit/admin-read-recorder';
import { AuditCheckpoints } from '../../src/application/audit/audit-checkpoints';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { VerifyAuditChainUseCase } from '../../src/application/audit/verify-audit-chain.use-case';
import { ErasePersonalDataUseCase } from '../../src/application/privacy/erase-personal-data.use-case';
import { PrunePastRetentionUseCase, type RetentionSettings } from '../../src/application/privacy/prune-past-retention.use-case';
import { ErasureInvalidEmailError, ErasureLeadNotFoundError } from '../../src/domain/privacy/erasure';
import type { DatabaseSettings } from '../../src/infrastructure/config/app-config';
import { PostgresAuditChainSealer } from '../../src/infrastructure/persistence/repositories/postgres-audit-chain-sealer';
import { PostgresAuditLog } from '../../src/infrastructure/persistence/repositories/postgres-audit-log';
import { PostgresAuditReader } from '../../src/infrastructure/persistence/repositories/postgres-audit-reader';
import { PostgresErasureStore } from '../../src/infrastructure/persistence/repositories/postgres-erasure-store';
import { PostgresRetentionStore } from '../../src/infrastructure/persistence/repositories/postgres-retention-store';
import { ErasedAddressKey } from '../../src/infrastructure/security/erased-address-key';
import { listedValues } from '../../src/infrastructure/persistence/tables/do-not-contact';
import { sql } from '../../src/infrastructure/persistence/sql';
import { AuditAppender } from '../../src/infrastructure/persistence/tables/audit-log';
import { Ed25519CheckpointSigner, Ed25519SignatureVerifier } from '../../src/infrastructure/security/ed25519-checkpoint-keys';
import { FixedClock } from '../fakes/fixed-clock';
import { RecordingLogger } from '../fakes/recording-logger';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';
import { usingPostgresServer } from '../support/test-database';

/** The operator's one key: every process of a test signs with it, and verify trusts it alone. */
const KEY = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
/** The key do-not-contact entries an erasure touches are hashed under (JWT_SECRET's, in the service). */
const ERASED_KEY = ErasedAddressKey.derive('test secret');
const engine = usingPostgresServer ? 'PostgreSQL' : 'PGlite';

/** The audit machinery of one process over `database`: appends, sealing with checkpoints, full verify, erasure, retention. */
function auditOn(database: DataSource, retention: Partial<RetentionSettings> = {}) {
  const clock = new FixedClock(new Date());
  const checkpoints = new AuditCheckpoints(
    new Ed25519CheckpointSigner(KEY),
    new Ed25519SignatureVerifier(),
    clock,
    { interval: { rows: 100, ms: 3_600_000 }, origin: 'bridle.test/audit' },
    merkleHasher,
  );
  const seal = new SealAuditChainUseCase(new PostgresAuditChainSealer(database), checkpoints);
  const auditLog = new PostgresAuditLog(database, new AuditAppender(new RecordingMetrics()));
  const reader = new PostgresAuditReader(database);
  const verify = new VerifyAuditChainUseCase(
    reader,
    new AdminReadRecorder(auditLog, clock),
    seal,
    checkpoints,
    new PostgresAuditTree(database),
    merkleHasher,
  );
  const erase = new ErasePersonalDataUseCase(new PostgresErasureStore(database, ERASED_KEY), auditLog, clock);
  const settings: RetentionSettings = {
    auditDays: 395,
    conversationDays: 395,
    outreachDays: 395,
    notificationDays: 30,
    legalHold: false,
    ...retention,
  };
  const prune = new PrunePastRetentionUseCase(new PostgresRetentionStore(database), settings, clock, new RecordingLogger());
  return { clock, seal, auditLog, reader, verify, erase, prune, settings };
}

/** Rows through audit_log's own insert (its queueing trigger runs), `daysAgo` old, each naming `text`. */
async function insertRows(database: DataSource, actorId: string, rows: number, text: string, daysAgo = 0): Promise<void> {
  await database.query(
    `INSERT INTO audit_log (source, actor_id, tool, arguments, status, created_at)
     SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', $3 || ' ' || n), 'succeeded', now() - make_interval(days => $4::int)
     FROM generate_series(1, $2::int) n`,
    [actorId, rows, text, daysAgo],
  );
}

async function sealAll(audit: ReturnType<typeof auditOn>): Promise<void> {
  while ((await audit.seal.run({ waitForOtherSealer: true })) > 0);
}

/** Every row of every table of the public schema, as text: PGlite's stand-in for a dump. */
async function dumpOf(database: DataSource, settings: DatabaseSettings): Promise<string> {
  if (settings.kind === 'server') {
    const { stdout } = await promisify(execFile)('pg_dump', ['--dbname', settings.url], { maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  }
  const tables = await database.query<{ name: string }[]>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`);
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await database.query<{ row: string }[]>(`SELECT t::text AS row FROM "${name}" t`);
    parts.push(...rows.map((row) => row.row));
  }
  return parts.join('\n');
}

describe(`erasure on ${engine}`, () => {
  const db = useOpenDatabase();

  it('keeps a chain written before the migration verifying in full, its rows erased or not, and the new rows committed', async () => {
    const database = db.database;
    await undoMigrationsDownTo(database, 'AuditErasure1768060800000');
    const before = auditOn(database);
    const actor = randomUUID();
    await insertRows(database, actor, 150, 'legacy row of old.person@example.com');
    await insertRows(database, randomUUID(), 30, 'someone else');
    await sealAll(before);
    await database.runMigrations();

    const audit = auditOn(database);
    expect(await audit.verify.verify(true)).toMatchObject({ verified: true, firstBadCheckpoint: null });
    // New rows: salted, and their canonical text holds a commitment, not their arguments.
    await insertRows(database, actor, 20, 'new row of old.person@example.com');
    await sealAll(audit);
    const [fresh] = await database.query<{ salted: boolean; canonical: string }[]>(
      `SELECT personal_salt IS NOT NULL AS salted, audit_row_canonical(a) AS canonical FROM audit_log a ORDER BY seq DESC LIMIT 1`,
    );
    expect(fresh.salted).toBe(true);
    expect(fresh.canonical).not.toContain('old.person');
    expect(JSON.parse(fresh.canonical)).toHaveProperty('personal');

    // Erase the person's rows, old and new: the chain and every checkpoint still hold.
    await database.query(`INSERT INTO users (id, email, password_hash, role) VALUES ($1, 'old.person@example.com', 'x', 'user')`, [actor]);
    const counts = await audit.erase.eraseAccount({ actorId: actor, admin: false }, actor);
    expect(counts).toMatchObject({ auditRows: 170, accounts: 1 });
    await sealAll(audit);
    expect(await audit.verify.verify(true)).toMatchObject({ verified: true, firstBadSeq: null, firstBadCheckpoint: null });
    const [left] = await database.query<{ mentions: string }[]>(
      `SELECT count(*) AS mentions FROM audit_log WHERE arguments::text LIKE '%old.person%'`,
    );
    expect(Number(left.mentions)).toBe(0);
  });

  it('refuses any other change of a row: editing a public field, or "erasing" with a commitment that is not its own', async () => {
    const database = db.database;
    const audit = auditOn(database);
    await insertRows(database, randomUUID(), 1, 'to be edited');
    await sealAll(audit);
    const [{ seq }] = await database.query<{ seq: string }[]>(`SELECT max(seq) AS seq FROM audit_log`);
    await expect(database.query(`UPDATE audit_log SET tool = 'other' WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
    await expect(
      database.query(
        `UPDATE audit_log SET arguments = '{}', personal_salt = NULL, personal_commitment = repeat('0', 64), erased_by = actor_id, erased_at = now()
         WHERE seq = $1`,
        [seq],
      ),
    ).rejects.toThrow(/append-only/);
    await expect(database.query(`DELETE FROM audit_log WHERE seq = $1`, [seq])).rejects.toThrow(/append-only/);
  });

  it('erases a lead and an account so that a dump holds none of their email, name, URL or message text; the erasure is audited and everything verifies', async () => {
    const database = db.database;
    const audit = auditOn(database);
    const [owner] = await database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('owner.zq@example.com', 'x', 'user') RETURNING id`,
    );
    const [admin] = await database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('admin.zq@example.com', 'x', 'admin') RETURNING id`,
    );
    const [campaign] = await database.query<{ id: string }[]>(
      `INSERT INTO campaigns (owner_id, name, status, created_at, updated_at)
       VALUES ($1, 'Spring', 'draft', now(), now()) RETURNING id`,
      [owner.id],
    );
    const lead = { name: 'Zebulon Quartermaine', url: 'https://www.linkedin.com/in/zebulon-quartermaine/', email: 'Zebulon.Q@Example.com' };
    const [leadRow] = await database.query<{ id: string }[]>(
      `INSERT INTO leads (campaign_id, name, linkedin_url, email, email_key, created_at) VALUES ($1, $2, $3, $4::text, lower($4::text), now()) RETURNING id`,
      [campaign.id, lead.name, lead.url, lead.email],
    );
    const [other] = await database.query<{ id: string }[]>(
      `INSERT INTO leads (campaign_id, name, linkedin_url, email, email_key, created_at)
       VALUES ($1, 'Ottoline Vesper', 'https://www.linkedin.com/in/ottoline-vesper/', 'ottoline@example.org', 'ottoline@example.org', now()) RETURNING id`,
      [campaign.id],
    );
    const [task] = await database.query<{ id: string }[]>(
      `INSERT INTO outreach_tasks (campaign_id, lead_id, type, step, status, next_run_at, created_at, updated_at)
       VALUES ($1, $2, 'SendEmail', 3, 'Pending', now(), now(), now()) RETURNING id`,
      [campaign.id, leadRow.id],
    );
    const body = 'Dear Zebulon, the quokka symposium awaits';
    // Audit rows of the outreach, of the owner's chat that names the lead, and of the account.
    await audit.auditLog.record(
      {
        source: 'outreach',
        actorId: owner.id,
        campaignId: campaign.id,
        outreachTaskId: task.id,
        tool: 'send_email',
        arguments: { to: lead.email, body },
        securityEvents: [],
      },
      { status: 'succeeded', result: { delivered: true }, durationMs: 3 },
    );
    await audit.auditLog.record(
      { source: 'chat', actorId: admin.id, tool: 'add_task', arguments: { title: `call ${lead.name} at ${lead.url}` }, securityEvents: [] },
      { status: 'succeeded', result: { number: 1 }, durationMs: 1 },
    );
    const [conversation] = await database.query<{ id: string }[]>(
      `INSERT INTO conversations (user_id, title, created_at, updated_at) VALUES ($1, 'Chat', now(), now()) RETURNING id`,
      [admin.id],
    );
    await database.query(`INSERT INTO messages (conversation_id, role, content, created_at) VALUES ($1, 'user', $2, now())`, [
      conversation.id,
      `remind me to write to ${lead.email.toLowerCase()}`,
    ]);
    // The account's own: its conversation, and rows it wrote.
    const [ownConversation] = await database.query<{ id: string }[]>(
      `INSERT INTO conversations (user_id, title, created_at, updated_at) VALUES ($1, 'Mine', now(), now()) RETURNING id`,
      [owner.id],
    );
    const ownText = 'my secret plan involves a marmalade heist';
    await database.query(`INSERT INTO messages (conversation_id, role, content, created_at) VALUES ($1, 'user', $2, now())`, [
      ownConversation.id,
      ownText,
    ]);
    await audit.auditLog.record(
      { source: 'chat', actorId: owner.id, tool: 'add_task', arguments: { title: ownText }, securityEvents: [] },
      { status: 'succeeded', result: { number: 2 }, durationMs: 1 },
    );
    // The lead's address and profile on the owner's do-not-contact list, and its address on the admin's.
    const key = lead.email.toLowerCase();
    await database.query(
      `INSERT INTO do_not_contact (owner_id, kind, value, created_at) VALUES ($1, 'email', $3, now()), ($1, 'linkedin', $4, now()), ($2, 'email', $3, now())`,
      [owner.id, admin.id, key, lead.url],
    );
    await insertRows(database, randomUUID(), 250, 'unrelated');
    await sealAll(audit);
    const checkpointsBefore = await database.query<{ position: string }[]>(`SELECT position FROM audit_checkpoints`);

    // Refusals first: unknown lead (404), not an address (400), and the owner only erases their own campaigns' leads.
    await expect(audit.erase.eraseLead({ actorId: owner.id, admin: false }, campaign.id, randomUUID())).rejects.toBeInstanceOf(
      ErasureLeadNotFoundError,
    );
    await expect(audit.erase.eraseLead({ actorId: admin.id, admin: false }, campaign.id, leadRow.id)).rejects.toBeInstanceOf(
      ErasureLeadNotFoundError,
    );
    await expect(audit.erase.eraseEmail({ actorId: admin.id, admin: true }, 'not an address')).rejects.toBeInstanceOf(
      ErasureInvalidEmailError,
    );

    const [{ mark }] = await database.query<{ mark: string }[]>(`SELECT max(seq) AS mark FROM audit_log`);
    // The deployment's erasure of the lead (an admin's) finds its texts in everyone's records; an
    // owner's own finds them in the owner's only (test/e2e/erasure.e2e.spec.ts).
    const leadCounts = await audit.erase.eraseLead({ actorId: admin.id, admin: true }, campaign.id, leadRow.id);
    expect(leadCounts).toMatchObject({ leads: 1, auditRows: 2, messages: 1, accounts: 0, doNotContact: 3 });
    // Still listed, as the keyed hash of the canonical value (the SQL HMAC is Node's), so still never contacted.
    const listed = async (ownerId: string) =>
      (await database.query<{ value: string }[]>(`SELECT value FROM do_not_contact WHERE owner_id = $1 ORDER BY value`, [ownerId])).map(
        (row) => row.value,
      );
    expect(await listed(owner.id)).toEqual([`hmac-sha256:${ERASED_KEY.hash(key)}`, `hmac-sha256:${ERASED_KEY.hash(lead.url)}`].sort());
    const check = sql`SELECT ${listedValues(ERASED_KEY, sql`${owner.id}::uuid`, sql`${lead.url}::text`, sql`${key}::text`)} AS blocked`;
    const [{ blocked }] = await database.query<{ blocked: string[] }[]>(check.text, check.values);
    expect(blocked).toEqual([lead.url, key]);
    const accountCounts = await audit.erase.eraseAccount({ actorId: admin.id, admin: true }, owner.id);
    expect(accountCounts).toMatchObject({ accounts: 1, leads: 1 });
    await sealAll(audit);

    const dump = await dumpOf(database, db.settings);
    expect(dump).toContain('unrelated'); // the dump is a dump of this database
    for (const needle of [
      lead.name,
      lead.url,
      lead.email,
      lead.email.toLowerCase(),
      body,
      'owner.zq@example.com',
      ownText,
      'Ottoline Vesper',
    ]) {
      expect({ needle, found: dump.includes(needle) }).toEqual({ needle, found: false });
    }

    const verified = await audit.verify.verify(true);
    expect(verified).toMatchObject({ verified: true, firstBadSeq: null, firstBadCheckpoint: null });
    expect(Number((await database.query<{ n: string }[]>(`SELECT count(*) AS n FROM audit_checkpoints`))[0].n)).toBeGreaterThanOrEqual(
      checkpointsBefore.length,
    );
    // The erasure is audited, without the data: who, what kind, how many; and the erased rows say by whom and when.
    const erasures = await database.query<{ tool: string; actor_id: string; status: string; arguments: unknown; result: unknown }[]>(
      `SELECT tool, actor_id, status, arguments, result FROM audit_log WHERE tool LIKE 'erasure.%' AND pending_seq IS NOT NULL AND seq > $1 ORDER BY seq`,
      [mark],
    );
    expect(erasures).toEqual([
      {
        tool: 'erasure.lead',
        actor_id: admin.id,
        status: 'succeeded',
        arguments: { kind: 'lead', campaignId: campaign.id, leadId: leadRow.id },
        result: { ...leadCounts, erasedAt: audit.clock.now().toISOString() },
      },
      {
        tool: 'erasure.account',
        actor_id: admin.id,
        status: 'succeeded',
        arguments: { kind: 'account', userId: owner.id },
        result: { ...accountCounts, erasedAt: audit.clock.now().toISOString() },
      },
    ]);
    const [stamped] = await database.query<{ erased_by: string; erased: boolean }[]>(
      `SELECT erased_by, erased_at IS NOT NULL AS erased FROM audit_log WHERE tool = 'send_email'`,
    );
    expect(stamped).toEqual({ erased_by: admin.id, erased: true });
    // The owner's list went with the account; the admin's keeps the address hashed.
    expect(await listed(admin.id)).toEqual([`hmac-sha256:${ERASED_KEY.hash(key)}`]);
    // The other lead's rows elsewhere are untouched; its own lead row went with the account.
    expect(await database.query(`SELECT id FROM leads WHERE id = $1`, [other.id])).toEqual([]);
  });
});

describe(`retention on ${engine}`, () => {
  const db = useOpenDatabase();

  it('prunes audit rows older than the setting up to a checkpoint; the rest verifies from it; a legal hold keeps everything', async () => {
    const database = db.database;
    const audit = auditOn(database);
    const actor = randomUUID();
    await insertRows(database, actor, 250, 'old', 500);
    await sealAll(audit); // one batch: a checkpoint at its end
    await insertRows(database, actor, 120, 'recent', 10);
    await sealAll(audit);
    const [{ first }] = await database.query<{ first: string }[]>(`SELECT min(position) AS first FROM audit_checkpoints`);
    const count = async () => Number((await database.query<{ n: string }[]>(`SELECT count(*) AS n FROM audit_log`))[0].n);
    const rowsBefore = await count();

    const held = auditOn(database, { legalHold: true });
    expect(await held.prune.run()).toMatchObject({ held: true, auditRows: 0 });
    expect(await count()).toBe(rowsBefore);

    // Now as the setting says: rows 500 days old go, up to the newest checkpoint whose row is that old.
    const report = await audit.prune.run();
    expect(report).toMatchObject({ held: false, auditHorizon: Number(first) });
    expect(await count()).toBe(rowsBefore - (Number(first) - 1));
    const kept = await database.query<{ position: string }[]>(
      `SELECT min(c.position) AS position FROM audit_chain c JOIN audit_log a ON a.seq = c.seq`,
    );
    expect(Number(kept[0].position)).toBe(Number(first));
    // The links and checkpoints stay; verify walks from the horizon and checks every checkpoint.
    const verified = await audit.verify.verify(true);
    expect(verified).toMatchObject({ verified: true, firstBadSeq: null, firstBadCheckpoint: null, from: Number(first) });
    // A second run has nothing more to prune, and the recent rows are never touched.
    expect((await audit.prune.run()).auditRows).toBe(0);
    const recent = await database.query<{ n: string }[]>(`SELECT count(*) AS n FROM audit_log WHERE arguments->>'title' LIKE 'recent%'`);
    expect(Number(recent[0].n)).toBe(120);
  });

  it('deletes conversations and completed campaigns past their settings, and nothing under a legal hold', async () => {
    const database = db.database;
    const [owner] = await database.query<{ id: string }[]>(
      `INSERT INTO users (email, password_hash, role) VALUES ('retained@example.com', 'x', 'user') RETURNING id`,
    );
    for (const days of [400, 10]) {
      await database.query(
        `INSERT INTO conversations (user_id, title, created_at, updated_at) VALUES ($1, $2, now() - make_interval(days => $3::int), now() - make_interval(days => $3::int))`,
        [owner.id, `kept ${days}`, days],
      );
      await database.query(
        `INSERT INTO campaigns (owner_id, name, status, created_at, updated_at)
         VALUES ($1, $2, 'completed', now(), now() - make_interval(days => $3::int))`,
        [owner.id, `campaign ${days}`, days],
      );
    }
    const names = async () => ({
      conversations: (
        await database.query<{ title: string }[]>(`SELECT title FROM conversations WHERE user_id = $1 ORDER BY title`, [owner.id])
      ).map((row) => row.title),
      campaigns: (await database.query<{ name: string }[]>(`SELECT name FROM campaigns WHERE owner_id = $1 ORDER BY name`, [owner.id])).map(
        (row) => row.name,
      ),
    });
    await auditOn(database, { legalHold: true }).prune.run();
    expect(await names()).toEqual({ conversations: ['kept 10', 'kept 400'], campaigns: ['campaign 10', 'campaign 400'] });
    await auditOn(database).prune.run();
    expect(await names()).toEqual({ conversations: ['kept 10'], campaigns: ['campaign 10'] });
  });
});
