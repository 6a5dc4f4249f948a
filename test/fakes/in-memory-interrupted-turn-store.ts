import { InterruptedTurnStore, type UnsettledToolCall } from '../../src/application/chat/ports/interrupted-turn-store.port';
import type { SettledOutcome, TaskEvidence } from '../../src/application/todo/tools/tool-call-evidence';

/** An interrupted turn left for the sweeper: its answer-to-be and when the turn started. */
export interface OpenTurn {
  readonly decisionId: string;
  readonly startedAt: Date;
  answer?: string;
}

/**
 * Leftovers in memory. `evidence` is what the database would show for every actor;
 * `settledElsewhere` holds calls another sweeper settles first.
 */
export class InMemoryInterruptedTurnStore extends InterruptedTurnStore {
  readonly outcomes = new Map<number, SettledOutcome>();
  readonly settledElsewhere = new Set<number>();
  readonly queries: { startedBefore: Date; afterSeq: number; limit: number }[] = [];

  constructor(
    readonly calls: UnsettledToolCall[] = [],
    readonly turns: OpenTurn[] = [],
    private readonly evidence: TaskEvidence = { tasks: [], lastTaskNumber: 0, claimedTaskNumbers: new Set() },
  ) {
    super();
  }

  unsettledToolCalls(input: { startedBefore: Date; afterSeq: number; limit: number }): Promise<UnsettledToolCall[]> {
    this.queries.push(input);
    return Promise.resolve(
      this.calls
        .filter((call) => call.pendingSeq > input.afterSeq && call.startedAt < input.startedBefore && !this.outcomes.has(call.pendingSeq))
        .sort((a, b) => a.pendingSeq - b.pendingSeq)
        .slice(0, input.limit),
    );
  }

  settleToolCall(call: UnsettledToolCall, decide: (evidence: TaskEvidence) => SettledOutcome): Promise<SettledOutcome | null> {
    if (this.outcomes.has(call.pendingSeq) || this.settledElsewhere.has(call.pendingSeq)) return Promise.resolve(null);
    const outcome = decide(this.evidence);
    this.outcomes.set(call.pendingSeq, outcome);
    return Promise.resolve(outcome);
  }

  answerInterruptedTurns(input: { startedBefore: Date; content: string; now: Date; limit: number }): Promise<number> {
    const due = this.turns.filter((turn) => turn.answer === undefined && turn.startedAt < input.startedBefore).slice(0, input.limit);
    for (const turn of due) turn.answer = input.content;
    return Promise.resolve(due.length);
  }
}
