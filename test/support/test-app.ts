import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type AddressInfo, createServer } from 'node:net';
import { LanguageModel } from '../../src/application/agent/ports/language-model.port';
import { PasswordHasher } from '../../src/application/identity/ports/password-hasher.port';
import { Clock } from '../../src/application/shared/ports/clock.port';
import { type AppConfig, loadConfig } from '../../src/infrastructure/config/app-config';
import { ScryptPasswordHasher } from '../../src/infrastructure/security/scrypt-password-hasher';
import { configureHttpApp } from '../../src/interfaces/http/configure-http-app';
import { AppModule } from '../../src/modules/app.module';
import type { TestDatabase } from './test-database';

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
  overrides: { languageModel?: LanguageModel; clock?: Clock } = {},
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
    // Tests run cycles themselves (POST …/cycles); a test that wants the in-process worker sets it.
    OUTREACH_WORKER: 'false',
    ...(database.settings.kind === 'embedded' ? { BRIDLE_DATA_DIR: database.settings.dataDir } : { DATABASE_URL: database.settings.url }),
    ...env,
  });
  const builder = Test.createTestingModule({ imports: [AppModule.register(config)] });
  builder.overrideProvider(PasswordHasher).useValue(new ScryptPasswordHasher(FAST_SCRYPT));
  if (overrides.languageModel) builder.overrideProvider(LanguageModel).useValue(overrides.languageModel);
  if (overrides.clock) builder.overrideProvider(Clock).useValue(overrides.clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false });
  configureHttpApp(app, config);
  // Listening once: given the bare server, supertest would listen and close per request.
  await app.listen(port, '127.0.0.1');
  return { app, http: `http://127.0.0.1:${port}`, config, close: () => app.close() };
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
