import { UnitOfWork } from '../../src/application/shared/ports/unit-of-work.port';

/**
 * A unit of work for in-memory fakes: runs the work as it is (nothing to roll back), says
 * whether one is open (for fakes to record what ran inside one), and runs after-commit
 * effects once the outermost one resolves, none if it rejects.
 */
export class RecordingUnitOfWork extends UnitOfWork {
  private depth = 0;
  private pending: (() => void)[] = [];
  units = 0;

  get open(): boolean {
    return this.depth > 0;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.depth === 0) this.units += 1;
    this.depth += 1;
    try {
      const result = await work();
      if (this.depth === 1) this.pending.splice(0).forEach((effect) => effect());
      return result;
    } catch (error) {
      if (this.depth === 1) this.pending = [];
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  afterCommit(effect: () => void): void {
    if (this.open) this.pending.push(effect);
    else effect();
  }
}
