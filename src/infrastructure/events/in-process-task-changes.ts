import { EventEmitter } from 'node:events';
import { TaskChanges } from '../../application/todo/ports/task-changes.port';

/** Task changes within this process: one event per user id. */
export class InProcessTaskChanges extends TaskChanges {
  private readonly events = new EventEmitter().setMaxListeners(0);

  publish(userId: string): void {
    this.events.emit(userId);
  }

  subscribe(userId: string, listener: () => void): () => void {
    this.events.on(userId, listener);
    return () => this.events.off(userId, listener);
  }
}
