import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { App } from 'supertest/types';
import { LanguageModel } from '../../src/application/agent/ports/language-model.port';
import { Clock } from '../../src/application/shared/ports/clock.port';
import { type AppConfig, loadConfig } from '../../src/infrastructure/config/app-config';
import { configureHttpApp } from '../../src/interfaces/http/configure-http-app';
import { AppModule } from '../../src/modules/app.module';
import type { TestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface TestApp {
  readonly app: NestExpressApplication;
  readonly http: App;
  readonly config: AppConfig;
  close(): Promise<void>;
}

/** The real AppModule, configured as `main.ts` does, on the test's own database. */
export async function startTestApp(
  database: TestDatabase,
  env: Record<string, string> = {},
  overrides: { languageModel?: LanguageModel; clock?: Clock } = {},
): Promise<TestApp> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    AUTH_RATE_LIMIT_PER_MINUTE: '10000',
    CHAT_RATE_LIMIT_PER_MINUTE: '10000',
    ...(database.settings.kind === 'embedded'
      ? { BRIDLE_DATA_DIR: database.settings.dataDir }
      : { DATABASE_URL: database.settings.url }),
    ...env,
  });
  const builder = Test.createTestingModule({ imports: [AppModule.register(config)] });
  if (overrides.languageModel) builder.overrideProvider(LanguageModel).useValue(overrides.languageModel);
  if (overrides.clock) builder.overrideProvider(Clock).useValue(overrides.clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false });
  configureHttpApp(app, config);
  await app.init();
  return { app, http: app.getHttpServer() as App, config, close: () => app.close() };
}
