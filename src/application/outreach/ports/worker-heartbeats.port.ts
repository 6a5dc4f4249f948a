/** How long a worker's last heartbeat counts it as running. */
export const WORKER_ACTIVE_WITHIN_MS = 30_000;
/** How often a running worker says so: well inside the window above. */
export const WORKER_HEARTBEAT_EVERY_MS = 10_000;

/** Where running outreach workers say so, and where anyone can ask how many there are. */
export abstract class WorkerHeartbeats {
  /** Records that `workerId` runs now (first call: it started). */
  abstract beat(workerId: string, now: Date): Promise<void>;
  /** The worker stopped cleanly. */
  abstract leave(workerId: string): Promise<void>;
  /** Workers whose last heartbeat is not older than `since`. */
  abstract countActive(since: Date): Promise<number>;
}
