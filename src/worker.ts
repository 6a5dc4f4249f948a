// First: OpenTelemetry, when configured, patches http, pg and pino before they load.
import './infrastructure/telemetry/start-tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadConfig } from './infrastructure/config/app-config';
import { WorkerModule } from './modules/worker.module';

/** `npm run worker`: one outreach worker process. Run as many as you like against one PostgreSQL. */
async function main(): Promise<void> {
  // This process is a worker whatever OUTREACH_WORKER says.
  const config = loadConfig({ ...process.env, OUTREACH_WORKER: 'true' });
  const app = await NestFactory.createApplicationContext(WorkerModule.register(config), { bufferLogs: true, abortOnError: false });
  const logger = app.get(Logger);
  app.useLogger(logger);
  await app.init();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received: finishing the current cycle, then stopping (at most ${config.shutdownGraceMs} ms)`);
      // A cycle still running at the deadline is cut; the outreach sweeper settles what it left in flight.
      // Not unref'd: a cycle waiting on nothing that holds the event loop (a timer of its own, say) would
      // otherwise let the process end by itself, exit code 0, once the database pool's idle clients close.
      setTimeout(() => {
        logger.warn('The current cycle did not finish within SHUTDOWN_GRACE_MS: stopping anyway');
        process.exit(1);
      }, config.shutdownGraceMs);
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error(error, 'Shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`Bridle worker could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
