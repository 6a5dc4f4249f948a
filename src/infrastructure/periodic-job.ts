import { type BeforeApplicationShutdown, type FactoryProvider, Logger, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import { AppConfig } from './config/app-config';

/**
 * Runs a job now and then every `intervalMs`, never two runs at once (a tick that finds
 * the last run still going is skipped). A failed run is logged and the next tick comes as
 * planned. `stop` ends the schedule and waits for a run under way, so that what the job
 * uses (the database) can close after it. The timer never keeps the process alive.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly what: string,
    private readonly job: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), intervalMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    this.running ??= this.job()
      .then(
        () => undefined,
        (error: unknown) => this.logger.error({ msg: `${this.what} failed`, err: error }),
      )
      .finally(() => (this.running = undefined));
  }
}

/** A PeriodicJob that starts with the application and stops before it shuts down (so before the database closes). */
class ScheduledJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly job: PeriodicJob,
    private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.intervalMs);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }
}

/**
 * A provider for a job that every process loading the module runs at start and every
 * `intervalMs`, stopped before shutdown. Nothing injects it (its token is its own); Nest
 * calls its lifecycle hooks. Failed runs are logged under `context`.
 */
export function periodicJobProvider<D>(job: {
  readonly what: string;
  readonly context: string;
  readonly uses: Type<D>;
  readonly intervalMs: (config: AppConfig) => number;
  readonly run: (dependency: D) => Promise<unknown>;
}): FactoryProvider<ScheduledJob> {
  return {
    provide: Symbol(job.what),
    inject: [AppConfig, job.uses],
    useFactory: (config: AppConfig, dependency: D) =>
      new ScheduledJob(new PeriodicJob(job.what, () => job.run(dependency), new Logger(job.context)), job.intervalMs(config)),
  };
}
