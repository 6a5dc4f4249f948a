import type { Amount } from '../../domain/agent/money';

/** What every decision-log row measures, whichever product decided (chat turn, outreach cycle). */
export interface DecisionMeasures {
  /** Model calls the decision took. */
  readonly iterations: number;
  readonly provider: string;
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** At the price table, exact; null when no prices are configured. */
  readonly cost: Amount | null;
  readonly durationMs: number;
  readonly failureClass: string | null;
  readonly providerRequestId: string | null;
}
