import type { AgentLimits, ModelSampling } from '../../domain/agent/limits';
import type { TokenPricing } from '../../domain/agent/pricing';

export abstract class AgentSettings {
  abstract readonly limits: AgentLimits;
  abstract readonly sampling: ModelSampling;
  /** When set, each decision-log row carries the cost of its tokens. */
  abstract readonly pricing: TokenPricing | null;
  /** Chat turns one person may start per minute, counted across every server process. */
  abstract readonly turnsPerMinute: number;
  /** Named by the sentence after an unexpected failure (SUPPORT_CONTACT); unset: "contact support". */
  abstract readonly supportContact?: string | null;
}
