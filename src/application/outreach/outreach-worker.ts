import { Injectable } from '@nestjs/common';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { RunOutreachCycleUseCase } from './run-outreach-cycle.use-case';
import { SweepStaleActionsUseCase } from './sweep-stale-actions.use-case';
import { Logger } from '../shared/ports/logger.port';

export interface WorkerTiming {
  /** Pause after a cycle found nothing to do. */
  readonly pollIntervalMs: number;
  readonly sweepIntervalMs: number;
}

/**
 * Runs cycles back to back while there is work, sweeps at start and periodically, and
 * stops between cycles when its signal aborts. Any number run against one PostgreSQL.
 */
@Injectable()
export class OutreachWorker {
  private readonly logger: Logger;

  constructor(
    private readonly cycle: RunOutreachCycleUseCase,
    private readonly sweeper: SweepStaleActionsUseCase,
    private readonly ids: IdGenerator,
    logger: Logger,
  ) {
    this.logger = logger.withContext(OutreachWorker.name);
  }

  /** @param name says where it runs (host and process), for the logs and the task leases. */
  async run(timing: WorkerTiming, signal: AbortSignal, name: string): Promise<void> {
    const workerId = `${name}-${this.ids.next().slice(0, 8)}`;
    this.logger.info({ msg: 'outreach worker started', workerId });
    let lastSweep = 0;
    while (!signal.aborted) {
      try {
        if (Date.now() - lastSweep >= timing.sweepIntervalMs) {
          lastSweep = Date.now();
          await this.sweeper.run();
        }
        const outcome = await this.cycle.run({ workerId });
        if (outcome.status === 'idle') await sleep(timing.pollIntervalMs, signal);
      } catch (error) {
        // A database blip must not kill the worker: log, wait, go on.
        this.logger.error({ msg: 'outreach cycle crashed', workerId, err: error });
        await sleep(timing.pollIntervalMs, signal);
      }
    }
    this.logger.info({ msg: 'outreach worker stopped', workerId });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
