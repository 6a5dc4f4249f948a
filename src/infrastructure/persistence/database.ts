import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseSettings } from '../config/app-config';
import { DataDirLock } from './data-dir-lock';
import { run, sendStatementsUnnamed, sql } from './sql';
import { InitialSchema1763769600000 } from './migrations/1763769600000-initial-schema';
import { ChatAndAudit1763856000000 } from './migrations/1763856000000-chat-and-audit';
import { DecisionCost1763942400000 } from './migrations/1763942400000-decision-cost';
import { Outreach1764028800000 } from './migrations/1764028800000-outreach';
import { AuditChain1764115200000 } from './migrations/1764115200000-audit-chain';
import { AuditReadIndexes1764201600000 } from './migrations/1764201600000-audit-read-indexes';
import { TaskCount1764288000000 } from './migrations/1764288000000-task-count';
import { AdminByOperator1764374400000 } from './migrations/1764374400000-admin-by-operator';
import { InterruptedTurns1764460800000 } from './migrations/1764460800000-interrupted-turns';
import { RateLimits1764720000000 } from './migrations/1764720000000-rate-limits';
import { TokenBudget1764806400000 } from './migrations/1764806400000-token-budget';
import { ConversationSummaries1764892800000 } from './migrations/1764892800000-conversation-summaries';
import { PendingConfirmations1764979200000 } from './migrations/1764979200000-pending-confirmations';
import { CredentialsVersion1765065600000 } from './migrations/1765065600000-credentials-version';
import { OutreachWorkers1765324800000 } from './migrations/1765324800000-outreach-workers';
import { ReviewDrafts1765497600000 } from './migrations/1765497600000-review-drafts';
import { CampaignBrief1765670400000 } from './migrations/1765670400000-campaign-brief';
import { WeeklyLimits1765929600000 } from './migrations/1765929600000-weekly-limits';
import { PersonalAccessTokens1766016000000 } from './migrations/1766016000000-personal-access-tokens';
import { OAuth1766102400000 } from './migrations/1766102400000-oauth';
import { AuditChainSealing1766188800000 } from './migrations/1766188800000-audit-chain-sealing';
import { OutreachClaim1766275200000 } from './migrations/1766275200000-outreach-claim';
import { AuditSealLinear1766361600000 } from './migrations/1766361600000-audit-seal-linear';
import { AuditSealByKey1766448000000 } from './migrations/1766448000000-audit-seal-by-key';
import { OAuthSweep1766534400000 } from './migrations/1766534400000-oauth-sweep';
import { DecisionPending1766620800000 } from './migrations/1766620800000-decision-pending';
import { McpSessions1766880000000 } from './migrations/1766880000000-mcp-sessions';
import { AuditCheckpoints1766966400000 } from './migrations/1766966400000-audit-checkpoints';
import { MessagesIdUnindexed1767052800000 } from './migrations/1767052800000-messages-id-unindexed';
import { DraftExpiry1767398400000 } from './migrations/1767398400000-draft-expiry';
import { DraftEscalation1767484800000 } from './migrations/1767484800000-draft-escalation';
import { ClarificationQuestion1767560000000 } from './migrations/1767560000000-clarification-question';
import { CanonicalAddresses1767657600000 } from './migrations/1767657600000-canonical-addresses';
import { PolicyPeople1767574800000 } from './migrations/1767574800000-policy-people';
import { McpEventStreamClaims1767571200000 } from './migrations/1767571200000-mcp-event-stream-claims';
import { AuditNumbering1767744000000 } from './migrations/1767744000000-audit-numbering';
import { McpInputRequests1767830400000 } from './migrations/1767830400000-mcp-input-requests';
import { OAuthUrlClients1767888000000 } from './migrations/1767888000000-oauth-url-clients';
import { AuditMerkleTree1767981600000 } from './migrations/1767981600000-audit-merkle-tree';
import { ToolCallPolicy1767225600000 } from './migrations/1767225600000-tool-call-policy';
import { PolicyVersions1767312000000 } from './migrations/1767312000000-policy-versions';
import { TurnRecord1767139200000 } from './migrations/1767139200000-turn-record';
import { AuditErasure1768060800000 } from './migrations/1768060800000-audit-erasure';
import { Notifications1768320000000 } from './migrations/1768320000000-notifications';
import { NotificationEmail1768406400000 } from './migrations/1768406400000-notification-email';
import { ReviewExpired1768665600000 } from './migrations/1768665600000-review-expired';
import { CampaignLimits1768752000000 } from './migrations/1768752000000-campaign-limits';
import { OpenTaskTypes1768838400000 } from './migrations/1768838400000-open-task-types';
import { BudgetsInMoney1768492800000 } from './migrations/1768492800000-budgets-in-money';
import { Webhooks1768579200000 } from './migrations/1768579200000-webhooks';

/** In order; listed explicitly so the same list works from sources, tests and dist. */
const MIGRATIONS = [
  InitialSchema1763769600000,
  ChatAndAudit1763856000000,
  DecisionCost1763942400000,
  Outreach1764028800000,
  AuditChain1764115200000,
  AuditReadIndexes1764201600000,
  TaskCount1764288000000,
  AdminByOperator1764374400000,
  InterruptedTurns1764460800000,
  RateLimits1764720000000,
  TokenBudget1764806400000,
  ConversationSummaries1764892800000,
  PendingConfirmations1764979200000,
  CredentialsVersion1765065600000,
  OutreachWorkers1765324800000,
  ReviewDrafts1765497600000,
  CampaignBrief1765670400000,
  WeeklyLimits1765929600000,
  PersonalAccessTokens1766016000000,
  OAuth1766102400000,
  AuditChainSealing1766188800000,
  OutreachClaim1766275200000,
  AuditSealLinear1766361600000,
  AuditSealByKey1766448000000,
  OAuthSweep1766534400000,
  DecisionPending1766620800000,
  McpSessions1766880000000,
  AuditCheckpoints1766966400000,
  MessagesIdUnindexed1767052800000,
  TurnRecord1767139200000,
  ToolCallPolicy1767225600000,
  PolicyVersions1767312000000,
  DraftExpiry1767398400000,
  DraftEscalation1767484800000,
  ClarificationQuestion1767560000000,
  McpEventStreamClaims1767571200000,
  PolicyPeople1767574800000,
  CanonicalAddresses1767657600000,
  AuditNumbering1767744000000,
  McpInputRequests1767830400000,
  OAuthUrlClients1767888000000,
  AuditMerkleTree1767981600000,
  AuditErasure1768060800000,
  Notifications1768320000000,
  NotificationEmail1768406400000,
  ReviewExpired1768665600000,
  BudgetsInMoney1768492800000,
  Webhooks1768579200000,
  CampaignLimits1768752000000,
  OpenTaskTypes1768838400000,
];

/** TypeORM's options for PostgreSQL, which PGlite is too. */
type PostgresOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/**
 * TypeORM's options for the database the settings name, as the app's TypeOrmModule is given
 * them (src/modules/persistence.module.ts). No entities: adapters write SQL (sql.ts), and TypeORM
 * runs the connection, transactions and migrations. What an embedded database is reached
 * through, PGlite's node-postgres adapter, exists only once its folder is open: openDatabase
 * adds it.
 */
export function dataSourceOptions(settings: DatabaseSettings): PostgresOptions {
  const common = {
    type: 'postgres',
    entities: [],
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    synchronize: false,
    uuidExtension: 'pgcrypto',
    logging: false,
  } satisfies PostgresOptions;
  // PGlite is one session: a pool of one serialises transactions instead of interleaving them.
  return settings.kind === 'server' ? { ...common, url: settings.url, poolSize: settings.poolMax ?? 10 } : { ...common, poolSize: 1 };
}

/**
 * Opens PGlite in the data folder (embedded) or connects to a PostgreSQL server, with TypeORM's
 * `options`, and runs pending migrations. The DataSource it hands back is initialized, and
 * owns what it runs on: its destroy() also closes PGlite and releases the folder, which is
 * locked for this process until then. TypeOrmModule destroys it at the app's shutdown.
 */
export async function openDatabase(
  settings: DatabaseSettings,
  options: PostgresOptions = dataSourceOptions(settings),
): Promise<DataSource> {
  return settings.kind === 'server' ? openServer(settings, options) : openEmbedded(settings, options);
}

/** A DataSource whose destroy() then releases what it ran on (PGlite and the data folder's lock), whoever destroys it. */
class OwningDataSource extends DataSource {
  constructor(
    options: DataSourceOptions,
    private readonly releaseResources: () => Promise<void>,
  ) {
    super(options);
  }

  override async destroy(): Promise<void> {
    try {
      await super.destroy();
    } finally {
      await this.releaseResources();
    }
  }
}

/** Applies DATABASE_PREPARED_STATEMENTS; before the first statement, migrations' included. */
function statementsOf<T extends DataSource>(dataSource: T, settings: DatabaseSettings): T {
  if (settings.preparedStatements === false) sendStatementsUnnamed(dataSource);
  return dataSource;
}

/** Any fixed 64-bit number; names Bridle's migration lock among the server's advisory locks. */
const MIGRATION_LOCK_KEY = 4_242_010;

async function openServer(settings: DatabaseSettings & { kind: 'server' }, options: PostgresOptions): Promise<DataSource> {
  const dataSource = statementsOf(new DataSource(options), settings);
  // Replicas that start together take turns, so only the first one migrates.
  await initialize(dataSource, async (migrate) => {
    // A transaction's lock, in a transaction left open on a connection of its own while the
    // migrations run on others: a pooler in transaction mode keeps one server connection for
    // an open transaction, where a session's lock would stay behind on whichever one took it.
    // So the pool needs two connections at least (DATABASE_POOL_MAX ≥ 2).
    const lock = dataSource.createQueryRunner();
    await lock.startTransaction();
    try {
      await run(lock, sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      await migrate();
    } finally {
      await lock.rollbackTransaction().catch(() => undefined);
      await lock.release();
    }
  });
  return dataSource;
}

/**
 * Shared buffers of the embedded database, set on every start (over the 128 MB that PGlite's
 * initdb writes into postgresql.conf). PostgreSQL touches all of them at start, inside a
 * WebAssembly memory that never shrinks; 16 MB holds the hot pages of one process serving a
 * handful of people, and a page not there is one read of the OS's file cache away. PGlite's
 * other start parameters, durability included, stay as they are (docs/operations.md, "Memory
 * of the embedded default"; bench/embedded-memory.ts).
 */
const EMBEDDED_SHARED_BUFFERS = '16MB';

async function openEmbedded(settings: DatabaseSettings & { kind: 'embedded' }, options: PostgresOptions): Promise<DataSource> {
  const { dataDir } = settings;
  await mkdir(dataDir, { recursive: true });
  const lock = await DataDirLock.acquire(dataDir);
  let pglite: { close(): Promise<void> } | undefined;
  let releasing: Promise<void> | undefined;
  // Once, whether the DataSource's destroy() or a failed start gets here first.
  const release = (): Promise<void> =>
    (releasing ??= (async () => {
      try {
        await pglite?.close();
      } finally {
        await lock.release();
      }
    })());
  try {
    // Loaded lazily: PGlite is large, and server deployments never need it.
    const { PGlite } = await import('@electric-sql/pglite');
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
    const instance = await PGlite.create(join(dataDir, 'pgdata'), {
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    });
    pglite = instance;
    // The folder lock already makes this process the only migrator.
    const dataSource = statementsOf(new OwningDataSource({ ...options, extra: { ...createPgConfig(instance) } }, release), settings);
    await initialize(dataSource);
    return dataSource;
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

async function initialize(
  dataSource: DataSource,
  exclusively: (migrate: () => Promise<unknown>) => Promise<void> = (migrate) => migrate().then(() => undefined),
): Promise<void> {
  await dataSource.initialize();
  try {
    await exclusively(() => dataSource.runMigrations());
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
}
