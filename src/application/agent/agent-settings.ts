import type { AgentLimits, ModelSampling } from '../../domain/agent/limits';
import type { PriceTable } from '../../domain/agent/pricing';

export abstract class AgentSettings {
  abstract readonly limits: AgentLimits;
  abstract readonly sampling: ModelSampling;
  /** LLM_PRICES: when set, each decision-log row carries the cost of its model calls. */
  abstract readonly prices: PriceTable | null;
  /** Chat turns one person may start per minute, counted across every server process. */
  abstract readonly turnsPerMinute: number;
  /** Named by the sentence after an unexpected failure (SUPPORT_CONTACT); unset: "contact support". */
  abstract readonly supportContact?: string | null;
}
