/**
 * How a call Bridle held for someone's decision ended, said in one place: an outreach draft
 * waiting for its reviewer, a chat delete waiting for the person's yes, an MCP client's
 * question (a 2025 elicitation or a 2026 multi-round-trip request), a question waiting in the
 * console. Each door says how its hold ended with holdEndingSentence.
 *
 * An expiry is never a "no": nobody decided in time, and that is what is said. A question the
 * person closed without answering (MCP's `cancel`) is not a "no" either.
 */
export const HOLD_ENDINGS = ['decided-yes', 'decided-no', 'dismissed', 'expired', 'failed'] as const;
export type HoldEnding = (typeof HOLD_ENDINGS)[number];

/** What was held, as the sentences name it. */
export interface Hold {
  /** A question put to the person, or a draft waiting for its reviewer's decision. */
  readonly kind: 'question' | 'review';
  /** What waited: "the question", "that request", "the draft". */
  readonly what: string;
  /** Who it waited for: "the person", "you", "its reviewer". */
  readonly who: string;
  /** How long it waited before it expired. */
  readonly waitedMs: number;
  /** What stands because it did not run: "nothing was deleted". */
  readonly so: string;
}

/**
 * The sentence for how a hold ended:
 * - `decided-yes`: "The person said yes.";
 * - `decided-no`: "The person said no, so nothing was deleted.";
 * - `dismissed`: "The person closed the question without answering it, so nothing was deleted.";
 * - `expired`: "The question expired unanswered after 5 minutes, so nothing was deleted." (a
 *   review: "The draft expired undecided after 3 days, …");
 * - `failed`: "The person could not be asked, so nothing was deleted.".
 */
export function holdEndingSentence(ending: HoldEnding, hold: Hold): string {
  switch (ending) {
    case 'decided-yes':
      return `${capitalised(hold.who)} said yes.`;
    case 'decided-no':
      return `${capitalised(hold.who)} said no, so ${hold.so}.`;
    case 'dismissed':
      return `${capitalised(hold.who)} closed ${hold.what} without answering it, so ${hold.so}.`;
    case 'expired':
      return `${capitalised(hold.what)} expired ${hold.kind === 'review' ? 'undecided' : 'unanswered'} after ${durationInWords(hold.waitedMs)}, so ${hold.so}.`;
    case 'failed':
      return `${capitalised(hold.who)} could not be asked, so ${hold.so}.`;
  }
}

/** "30 seconds", "1 minute", "10 minutes", "2 hours", "3 days": the largest whole unit. */
export function durationInWords(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60 || seconds % 60 !== 0) return counted(seconds, 'second');
  const minutes = seconds / 60;
  if (minutes % 60 !== 0) return counted(minutes, 'minute');
  const hours = minutes / 60;
  return hours % 24 === 0 && hours >= 48 ? counted(hours / 24, 'day') : counted(hours, 'hour');
}

const counted = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
