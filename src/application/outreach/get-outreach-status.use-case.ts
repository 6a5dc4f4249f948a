import { Injectable } from '@nestjs/common';
import { Clock } from '../shared/ports/clock.port';
import { WORKER_ACTIVE_WITHIN_MS, WorkerHeartbeats } from './ports/worker-heartbeats.port';

export interface OutreachStatus {
  /** Workers that said they run within the last WORKER_ACTIVE_WITHIN_MS. */
  readonly activeWorkers: number;
}

/** Whether anything works the active campaigns, or cycles run only when someone asks for one. */
@Injectable()
export class GetOutreachStatusUseCase {
  constructor(
    private readonly heartbeats: WorkerHeartbeats,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<OutreachStatus> {
    const since = new Date(this.clock.now().getTime() - WORKER_ACTIVE_WITHIN_MS);
    return { activeWorkers: await this.heartbeats.countActive(since) };
  }
}
