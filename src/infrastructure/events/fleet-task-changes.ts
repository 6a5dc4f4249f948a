import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { FleetBus } from '../../application/shared/ports/fleet-bus.port';
import { TaskChanges } from '../../application/todo/ports/task-changes.port';

/**
 * Task changes told to every process of the deployment over the fleet bus, so that whoever
 * shows a person's tasks live (an MCP subscription, an open console) hears a change written
 * by any replica. One bus subscription per process, fanned out here by user id. After the bus
 * was cut, every subscriber hears a change: it re-reads, in case it missed one.
 */
export class FleetTaskChanges extends TaskChanges {
  private readonly logger = new Logger('TaskChanges');
  private readonly local = new EventEmitter().setMaxListeners(0);

  constructor(private readonly bus: FleetBus) {
    super();
    bus.subscribe('bridle_task_changes', (userId) => this.local.emit(userId));
    bus.onResync(() => {
      for (const userId of this.local.eventNames()) this.local.emit(userId);
    });
  }

  publish(userId: string): void {
    this.bus.publish('bridle_task_changes', userId).catch((error: unknown) => {
      // The change itself has committed; only the live view of it is late until the next one.
      this.logger.warn({ err: error, userId }, 'could not announce a task change');
    });
  }

  subscribe(userId: string, listener: () => void): () => void {
    this.local.on(userId, listener);
    return () => this.local.off(userId, listener);
  }
}
