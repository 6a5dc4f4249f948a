import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig } from './infrastructure/config/app-config';
import { configureHttpApp } from './interfaces/http/configure-http-app';
import { AppModule } from './modules/app.module';

async function bootstrap(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  configureHttpApp(app, config);
  const logger = new Logger('Bridle');

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received: closing the server and the database`);
      app.close().then(
        () => {
          logger.log('Shut down cleanly');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error(error, 'Shutdown failed');
          process.exit(1);
        },
      );
    });
  }

  await app.listen(config.port, config.host);
  const { port } = (app.getHttpServer() as { address(): AddressInfo }).address();
  const database = config.database.kind === 'embedded' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL server (DATABASE_URL)';
  logger.log(`Listening on http://${config.host}:${port} (API docs at /docs), database: ${database}`);
}

bootstrap().catch((error: unknown) => {
  // Expected start-up failures (bad configuration, data folder in use) get one clear line.
  process.stderr.write(`Bridle could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
