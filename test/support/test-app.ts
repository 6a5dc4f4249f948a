import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type AddressInfo, createServer } from 'node:net';
import { LanguageModel } from '../../src/application/agent/ports/language-model.port';
import { PasswordHasher } from '../../src/application/identity/ports/password-hasher.port';
import { Clock } from '../../src/application/shared/ports/clock.port';
import type { TodoTool } from '../../src/application/todo/tools/todo-tool';
import { TodoTools } from '../../src/application/todo/tools/todo-tools';
import { type AppConfig, loadConfig } from '../../src/infrastructure/config/app-config';
import { OutboundNetwork } from '../../src/infrastructure/security/guarded-outbound-fetch';
import { ScryptPasswordHasher } from '../../src/infrastructure/security/scrypt-password-hasher';
import { configureHttpApp } from '../../src/interfaces/http/configure-http-app';
import { AppModule } from '../../src/modules/app.module';
import type { OutreachChannel } from '../../src/application/outreach/ports/channels.port';
import { ADDED_OUTREACH_CHANNELS } from '../../src/modules/outreach-channels.providers';
import { signUpAndIn, type SignedInUser } from './accounts';
import { signUpAdmin } from './admins';
import { type TestDatabase, useTestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

/** The real hasher at a fraction of the production cost: every suite signs people up. */
const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

export interface TestApp {
  readonly app: NestExpressApplication;
  /** The app's origin (`http://127.0.0.1:<port>`): supertest takes it, and so does fetch. */
  readonly http: string;
  readonly config: AppConfig;
  close(): Promise<void>;
}

/** The real AppModule, configured as `main.ts` does, on the test's own database, with a cheap password hash. */
export async function startTestApp(
  database: TestDatabase,
  env: Record<string, string> = {},
  overrides: {
    languageModel?: LanguageModel;
    clock?: Clock;
    outboundNetwork?: OutboundNetwork;
    channels?: readonly OutreachChannel[];
    todoTools?: readonly TodoTool[];
  } = {},
): Promise<TestApp> {
  // The port is known before the app starts, so PUBLIC_BASE_URL (the OAuth issuer, the MCP
  // resource's URL, unsubscribe links) names the address the tests really call.
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    AUTH_RATE_LIMIT_PER_MINUTE: '10000',
    CHAT_RATE_LIMIT_PER_MINUTE: '10000',
    API_RATE_LIMIT_PER_MINUTE: '10000',
    // Tests run cycles themselves (POST …/cycles); a test that wants the in-process worker sets it.
    OUTREACH_WORKER: 'false',
    ...(database.settings.kind === 'embedded' ? { BRIDLE_DATA_DIR: database.settings.dataDir } : { DATABASE_URL: database.settings.url }),
    ...env,
  });
  const builder = Test.createTestingModule({ imports: [AppModule.register(config)] });
  builder.overrideProvider(PasswordHasher).useValue(new ScryptPasswordHasher(FAST_SCRYPT));
  if (overrides.languageModel) builder.overrideProvider(LanguageModel).useValue(overrides.languageModel);
  if (overrides.clock) builder.overrideProvider(Clock).useValue(overrides.clock);
  if (overrides.outboundNetwork) builder.overrideProvider(OutboundNetwork).useValue(overrides.outboundNetwork);
  if (overrides.channels) builder.overrideProvider(ADDED_OUTREACH_CHANNELS).useValue(overrides.channels);
  // Tools of the test's own, registered after the built-in ones: everything that knows a tool reads this registry.
  if (overrides.todoTools) builder.overrideProvider(TodoTools).useValue(TodoTools.builtIn.with(overrides.todoTools));
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false });
  configureHttpApp(app, config);
  // Listening once: given the bare server, supertest would listen and close per request.
  await app.listen(port, '127.0.0.1');
  return { app, http: `http://127.0.0.1:${port}`, config, close: () => app.close() };
}

export interface TestAppOptions {
  /** Set on top of the test defaults above; a function is called as the app starts, for what an earlier hook made (a fake server's URL). */
  readonly env?: Record<string, string> | (() => Record<string, string>);
  readonly languageModel?: LanguageModel;
  readonly clock?: Clock;
  /** How outbound fetches resolve names and which extra certificate authority they trust: a local HTTPS fixture's. */
  readonly outboundNetwork?: OutboundNetwork | (() => OutboundNetwork);
  /** Outreach channels added to the built-in ones (the registration hook of ADDED_OUTREACH_CHANNELS). */
  readonly channels?: readonly OutreachChannel[];
  /** Todo tools of the test's own, served with the built-in ones (a TodoTool descriptor each). */
  readonly todoTools?: readonly TodoTool[];
  /** A database the migrations have not run on: for a test of start-up itself. */
  readonly fresh?: boolean;
  /** Runs before the app closes: what holds a connection open to it (MCP clients, event streams) goes first. */
  readonly beforeClose?: () => unknown;
  /** The start's own timeout (ms), the app's and its people's sign-ups, where the suite's default is too short. */
  readonly startTimeout?: number;
}

/** The app a describe block's tests share, on a database of its own. */
export interface AppUnderTest extends TestApp {
  readonly db: TestDatabase;
  /**
   * A person signed up and in over HTTP as soon as the app has started, in the order asked
   * for (`admin`: then given the admin role, as signUpAdmin does): its fields can be read from
   * the block's tests and later hooks. Call it in the describe body, next to `useTestApp`.
   */
  user(options?: { admin?: boolean }): SignedInUser;
  /** Closes the app unless it is closed, then starts a new one, as the first, on the same database: what survives a restart. */
  restart(): Promise<void>;
}

/**
 * Starts the real app on a new database (useTestDatabase) before the enclosing block's tests,
 * and after them closes it, then disposes the database. Its fields throw until it has started;
 * `close()` closes it once, whoever calls it first (a test, or the afterAll).
 */
export function useTestApp(options: TestAppOptions = {}): AppUnderTest {
  let running: TestApp | undefined;
  let closed: Promise<void> | undefined;
  let starting = false;
  const users: { admin?: boolean; signedIn?: SignedInUser }[] = [];
  const close = () => (closed ??= running ? running.close() : Promise.resolve());
  const db = useTestDatabase({
    fresh: options.fresh,
    beforeDispose: async () => {
      try {
        await options.beforeClose?.();
      } finally {
        await close();
      }
    },
  });

  const start = async (): Promise<TestApp> => {
    const env = typeof options.env === 'function' ? options.env() : options.env;
    const outboundNetwork = typeof options.outboundNetwork === 'function' ? options.outboundNetwork() : options.outboundNetwork;
    running = await startTestApp(db, env, {
      languageModel: options.languageModel,
      clock: options.clock,
      outboundNetwork,
      channels: options.channels,
      todoTools: options.todoTools,
    });
    closed = undefined;
    return running;
  };

  beforeAll(async () => {
    starting = true;
    const app = await start();
    for (const user of users) user.signedIn = user.admin ? await signUpAdmin(app) : await signUpAndIn(app.http);
  }, options.startTimeout);

  const started = (): TestApp => running ?? unavailable('the app starts in beforeAll: use it from a test or a later hook');
  return {
    get app() {
      return started().app;
    },
    get http() {
      return started().http;
    },
    get config() {
      return started().config;
    },
    db,
    close,
    async restart() {
      await close();
      await start();
    },
    user({ admin } = {}) {
      if (starting) throw new Error('user() signs a person up when the app starts: call it in the describe body');
      const slot: { admin?: boolean; signedIn?: SignedInUser } = { admin };
      users.push(slot);
      const signedIn = () => slot.signedIn ?? unavailable('the person signs up in beforeAll: use it from a test or a later hook');
      return {
        get userId() {
          return signedIn().userId;
        },
        get email() {
          return signedIn().email;
        },
        get token() {
          return signedIn().token;
        },
        get auth() {
          return signedIn().auth;
        },
      };
    },
  };
}

function unavailable(message: string): never {
  throw new Error(message);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
