import type { AgentLimits } from '../../domain/agent/limits';
import type { TokenPricing } from '../../domain/agent/pricing';

export abstract class AgentSettings {
  abstract readonly limits: AgentLimits;
  /** When set, each decision-log row carries the cost of its tokens. */
  abstract readonly pricing: TokenPricing | null;
}
