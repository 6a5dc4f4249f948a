import { afterFailedAttempt, answerOutcome, DEFAULT_RETRY_POLICY } from '../../../../src/domain/webhooks/webhook-delivery';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const first = new Date('2026-12-01T10:00:00.000Z');

/** When each attempt of a message that never gets through is made, attempt 1 at `first`, each retry at the time the last failure set. */
function schedule(): { attempts: number[]; exhaustedAfter: number } {
  const attempts = [0];
  for (;;) {
    const now = new Date(first.getTime() + attempts[attempts.length - 1]);
    const next = afterFailedAttempt(DEFAULT_RETRY_POLICY, attempts.length, first, now);
    if (next.kind === 'exhausted') return { attempts, exhaustedAfter: attempts.length };
    attempts.push(next.at.getTime() - first.getTime());
  }
}

describe('the webhook retry schedule', () => {
  it('waits 5 s, 30 s, 2 min, 10 min, 1 h, then every 3 h', () => {
    const { attempts } = schedule();
    const gaps = attempts.slice(1).map((at, i) => at - attempts[i]);
    expect(gaps.slice(0, 8)).toEqual([5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 3 * HOUR, 3 * HOUR, 3 * HOUR]);
  });

  it('makes its last attempt when the 24 hours close, and gives up when that one fails', () => {
    const { attempts, exhaustedAfter } = schedule();
    expect(attempts[attempts.length - 1]).toBe(24 * HOUR);
    expect(attempts.every((at) => at <= 24 * HOUR)).toBe(true);
    expect(exhaustedAfter).toBe(attempts.length);
    expect(afterFailedAttempt(DEFAULT_RETRY_POLICY, 3, first, new Date(first.getTime() + 25 * HOUR))).toEqual({ kind: 'exhausted' });
  });

  it('counts from the first attempt, however late a retry ran', () => {
    const late = new Date(first.getTime() + 23 * HOUR + 59 * MINUTE);
    expect(afterFailedAttempt(DEFAULT_RETRY_POLICY, 5, first, late)).toEqual({
      kind: 'retry',
      at: new Date(first.getTime() + 24 * HOUR),
    });
  });

  it('follows a schedule of the operator’s own, its last delay repeating', () => {
    const policy = { delaysMs: [100, 300], windowMs: 1_000 };
    const at = (attempts: number, elapsed: number) => afterFailedAttempt(policy, attempts, first, new Date(first.getTime() + elapsed));
    expect(at(1, 0)).toEqual({ kind: 'retry', at: new Date(first.getTime() + 100) });
    expect(at(2, 100)).toEqual({ kind: 'retry', at: new Date(first.getTime() + 400) });
    expect(at(5, 400)).toEqual({ kind: 'retry', at: new Date(first.getTime() + 700) });
    expect(at(6, 900)).toEqual({ kind: 'retry', at: new Date(first.getTime() + 1_000) });
    expect(at(7, 1_000)).toEqual({ kind: 'exhausted' });
  });

  it('counts any 2xx as delivered, 410 as gone, and everything else as a failed attempt', () => {
    expect([200, 201, 202, 204, 299].map(answerOutcome)).toEqual(Array(5).fill('delivered'));
    expect(answerOutcome(410)).toBe('gone');
    expect([100, 199, 301, 400, 401, 404, 409, 429, 500, 502, 503].map(answerOutcome)).toEqual(Array(11).fill('failed'));
  });
});
