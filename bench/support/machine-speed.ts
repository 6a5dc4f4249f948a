import { createHash } from 'node:crypto';

/**
 * How fast this machine runs one thread right now: a fixed piece of work of the kind a turn
 * does (JSON in and out, hashing, a regular expression, short-lived objects), timed five
 * times, the median kept. The 2-core machines the benchmarks run on changed speed by 2.5×
 * between two hours of one day with nothing else running (the same outreach code 158 and 458
 * tasks/s), which neither the CPU model nor /proc/stat's steal time showed; each benchmark
 * records this figure before and after it measures, so two runs are compared by their ratio
 * to it, not as they are.
 */
export interface MachineSpeed {
  /** Milliseconds of one pass of the fixed work, median of five (lower is faster). */
  readonly passMs: number;
  /** The five passes, fastest first. */
  readonly passesMs: readonly number[];
}

const RECORD = {
  id: '7f3c2a10-5b1e-4c8a-9d6f-0e2b4a6c8d10',
  title: 'Buy milk and bread for the week',
  tags: ['home', 'errands', 'weekly'],
  arguments: { title: 'Buy milk', due: '2026-12-01', priority: 2, notes: 'semi-skimmed, two litres' },
  history: Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} of the turn` })),
};
const WORDS = /\b(add|list|complete|delete)\b\s+(?:task\s+)?(\d+|[a-z ]+)/i;

function onePass(): number {
  const started = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < 5_000; i += 1) {
    const text = JSON.stringify({ ...RECORD, seq: i });
    const back = JSON.parse(text) as typeof RECORD;
    sink += createHash('sha256').update(text).digest()[0];
    sink += WORDS.exec(`please ${back.history[i % 12].content} add task ${i}`)?.[2].length ?? 0;
    sink += new Map(back.tags.map((tag, n) => [tag, n])).size;
  }
  if (sink < 0) throw new Error('unreachable');
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Times the fixed work (after one pass to warm it up): about 0.15 s on a fast machine. */
function machineSpeed(): MachineSpeed {
  onePass();
  const passesMs = Array.from({ length: 5 }, onePass)
    .map((ms) => Math.round(ms * 100) / 100)
    .sort((a, b) => a - b);
  return { passMs: passesMs[2], passesMs };
}

/** The machine's speed before a benchmark measured and after. */
export interface SpeedReadings {
  readonly before: MachineSpeed;
  readonly after: MachineSpeed;
}

/** Reads the speed now; the function it returns reads it again and gives both. */
export function speedAround(): () => SpeedReadings {
  const before = machineSpeed();
  return () => ({ before, after: machineSpeed() });
}

/** The sentence each benchmark's markdown gives its readings. */
export function speedSentence({ before, after }: SpeedReadings): string {
  return (
    `Machine speed (bench/support/machine-speed.ts, one thread, lower is faster): ${before.passMs} ms a pass before measuring, ` +
    `${after.passMs} ms after.`
  );
}
