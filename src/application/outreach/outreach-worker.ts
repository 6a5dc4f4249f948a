import { Injectable } from '@nestjs/common';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { WORKER_HEARTBEAT_EVERY_MS, WorkerHeartbeats } from './ports/worker-heartbeats.port';
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
 * It says it runs (WorkerHeartbeats) at start and every few seconds, so the console can
 * tell when nobody is working the campaigns.
 */
@Injectable()
export class OutreachWorker {
  private readonly logger: Logger;

  constructor(
    private readonly cycle: RunOutreachCycleUseCase,
    private readonly sweeper: SweepStaleActionsUseCase,
    private readonly ids: IdGenerator,
    private readonly heartbeats: WorkerHeartbeats,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext(OutreachWorker.name);
  }

  /** @param name says where it runs (host and process), for the logs and the task leases. */
  async run(timing: WorkerTiming, signal: AbortSignal, name: string): Promise<void> {
    const workerId = `${name}-${this.ids.next().slice(0, 8)}`;
    this.logger.info({ msg: 'outreach worker started', workerId });
    let lastSweep = 0;
    let lastBeat = 0;
    while (!signal.aborted) {
      try {
        if (Date.now() - lastBeat >= WORKER_HEARTBEAT_EVERY_MS) {
          lastBeat = Date.now();
          await this.heartbeats.beat(workerId, this.clock.now());
        }
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
    await this.heartbeats
      .leave(workerId)
      .catch((error: unknown) => this.logger.warn({ msg: 'could not sign the worker off', workerId, err: error }));
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
