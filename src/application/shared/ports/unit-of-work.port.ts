/**
 * Several writes that commit together or not at all, whichever repositories make them: a
 * tool's own write and its audit outcome row, say.
 */
export abstract class UnitOfWork {
  /** Runs `work` in one transaction; a nested call joins the outer one. */
  abstract run<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `effect` after the surrounding unit of work commits (never if it rolls back), or at once outside one. */
  abstract afterCommit(effect: () => void): void;
}
