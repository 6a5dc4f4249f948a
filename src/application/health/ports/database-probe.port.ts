export abstract class DatabaseProbe {
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  abstract ping(): Promise<void>;
}
