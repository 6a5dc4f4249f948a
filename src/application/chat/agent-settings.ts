import type { AgentLimits } from '../../domain/agent/limits';

export abstract class AgentSettings {
  abstract readonly limits: AgentLimits;
}
