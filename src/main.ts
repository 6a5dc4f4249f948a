// First: it changes how V8 collects garbage while the rest loads.
import { optimizeForSizeOnceStarted } from './infrastructure/start-up-heap';
// Second: OpenTelemetry, when configured, patches http, express, pg and pino before they load.
import './infrastructure/telemetry/start-tracing';
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig } from './infrastructure/config/app-config';
import { configureHttpApp } from './interfaces/http/configure-http-app';
import { GracefulShutdown } from './interfaces/http/graceful-shutdown';
import { AppModule } from './modules/app.module';

/** What Nest's shutdown hooks may take after the connections are drained. */
const HOOKS_MARGIN_MS = 2_000;

async function bootstrap(): Promise<void> {
  const starting = holdEventLoop();
  try {
    await start();
  } finally {
    clearInterval(starting);
    optimizeForSizeOnceStarted();
  }
}

/**
 * Keeps the event loop waiting on something until the server listens. Whenever the loop has
 * nothing to wait for (an `await` on PGlite compiling or instantiating WebAssembly, say), Node
 * blocks until every task queued on V8's worker threads has finished, and on a start on PGlite
 * those are mostly the optimising compiler's work on PGlite's hot WebAssembly functions: the
 * start stood still for 0.4 to 1.1 s with `npm start`'s `--v8-pool-size=1` (docs/operations.md,
 * "Cold start"). With the loop held, that work goes on in the background while the start does.
 */
function holdEventLoop(): NodeJS.Timeout {
  return setInterval(() => undefined, 60_000);
}

async function start(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  configureHttpApp(app, config);
  const logger = new Logger('Bridle');
  const shutdown = new GracefulShutdown(app.getHttpServer());
  shutdown.track();

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received: draining connections for up to ${config.shutdownGraceMs} ms, then closing the database`);
      // The hooks after the drain (an in-process worker's cycle, the database) get a bounded
      // time too: past it the process exits, and what it cut is swept as after a crash. Not
      // unref'd: with the server closed, a cycle waiting on an unref'd timer would otherwise let
      // the process end by itself, exit code 0, before its database is closed.
      setTimeout(() => {
        logger.warn(`Not shut down ${HOOKS_MARGIN_MS} ms after the grace period: exiting anyway`);
        process.exit(1);
      }, config.shutdownGraceMs + HOOKS_MARGIN_MS);
      // Nest's app.close() closes the HTTP server too, and its hooks stop the jobs and the database.
      shutdown
        .drain(config.shutdownGraceMs)
        .then(() => app.close())
        .then(
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
