import { Clock } from '../../src/application/shared/ports/clock.port';

export class FixedClock extends Clock {
  constructor(private current = new Date('2026-11-22T09:00:00.000Z')) {
    super();
  }

  now(): Date {
    return this.current;
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
