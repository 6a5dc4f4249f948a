import type { Logger } from '@nestjs/common';

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
