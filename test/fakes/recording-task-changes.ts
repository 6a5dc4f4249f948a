import { TaskChanges } from '../../src/application/todo/ports/task-changes.port';

/** TaskChanges in memory, telling who is subscribed right now, and how many times each subscribed. */
export class RecordingTaskChanges extends TaskChanges {
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly subscribed = new Map<string, number>();

  publish(userId: string): void {
    for (const listener of [...(this.listeners.get(userId) ?? [])]) listener();
  }

  subscribe(userId: string, listener: () => void): () => void {
    const mine = this.listeners.get(userId) ?? new Set();
    this.listeners.set(userId, mine);
    // A wrapper per call: the same function subscribed twice is two subscriptions.
    const subscription = () => listener();
    mine.add(subscription);
    this.subscribed.set(userId, (this.subscribed.get(userId) ?? 0) + 1);
    return () => mine.delete(subscription);
  }

  /** Every subscription `userId` ever took, ended or not. */
  subscriptions(userId: string): number {
    return this.subscribed.get(userId) ?? 0;
  }

  subscribers(userId: string): number {
    return this.listeners.get(userId)?.size ?? 0;
  }
}
