/** Bounds on one agent turn; every field is configurable. */
export interface AgentLimits {
  /** Model calls in one turn. */
  readonly maxIterations: number;
  /** Tool calls in one turn, over all iterations. */
  readonly maxToolCalls: number;
  /** Wall-clock budget of the whole turn, model and tools included. */
  readonly turnTimeoutMs: number;
  /** Budget of one tool call. */
  readonly toolTimeoutMs: number;
  /** Stored messages of the conversation the model gets to read. */
  readonly historyWindow: number;
  /** One tool call's argument text, in bytes: past it the call is refused. */
  readonly maxToolArgumentBytes: number;
  /** The model's answer, in bytes: past it the answer is cut with a marker. */
  readonly maxAnswerBytes: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = {
  maxIterations: 5,
  maxToolCalls: 10,
  turnTimeoutMs: 30_000,
  toolTimeoutMs: 10_000,
  historyWindow: 20,
  maxToolArgumentBytes: 16 * 1024,
  maxAnswerBytes: 8 * 1024,
};
