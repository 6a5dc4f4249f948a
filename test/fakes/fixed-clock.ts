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

/** The real time, moved on by `advance`: for a running app whose other parts read the real clock. */
export class ShiftedClock extends Clock {
  private offset = 0;

  now(): Date {
    return new Date(Date.now() + this.offset);
  }

  advance(ms: number): void {
    this.offset += ms;
  }
}
