/** One batch of pruning: how many rows it deleted (fewer than the batch: nothing older is left). */
export interface PrunedBatch {
  readonly rows: number;
  /** Audit only: the checkpoint position the log is pruned up to after this batch; null before any. */
  readonly horizon?: number | null;
}

/**
 * Deletes what is past retention, one batch per call, each batch its own transaction under one
 * advisory lock: null when another process holds it (it is pruning; this one leaves).
 */
export abstract class RetentionStore {
  /**
   * Audit rows (and decision logs) created before `before`, only those linked before the newest
   * checkpoint whose row is that old (the horizon, recorded first); the checkpoint's row, every
   * link and every checkpoint stay.
   */
  abstract pruneAudit(before: Date, batch: number): Promise<PrunedBatch | null>;
  /** Conversations last used before `before`, with their messages, summaries and confirmations. */
  abstract pruneConversations(before: Date, batch: number): Promise<PrunedBatch | null>;
  /** Completed campaigns last changed before `before` (with their leads, tasks, actions, drafts), and sandbox records as old. */
  abstract pruneOutreach(before: Date, batch: number): Promise<PrunedBatch | null>;
  /** Notifications written before `before`, with what still waits to be mailed of them. */
  abstract pruneNotifications(before: Date, batch: number): Promise<PrunedBatch | null>;
}
