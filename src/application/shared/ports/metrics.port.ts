/** One language model call, named by the configured provider and model (never by text from a response). */
export interface ModelCallMeasure {
  readonly provider: string;
  readonly model: string;
  readonly outcome: 'ok' | 'error';
  readonly seconds: number;
  readonly tokens: { readonly prompt: number; readonly completion: number };
  /** At the price table (LLM_PRICES), in its currency; null when no model is priced. */
  readonly cost: number | null;
}

/** What the service counts and times for operators (`GET /metrics`). Durations in seconds. */
export abstract class Metrics {
  abstract chatTurn(status: string, seconds: number): void;
  abstract outreachCycle(status: string, code: string | null, seconds: number): void;
  /** `seconds` null: refused before it ran, so counted but not timed. */
  abstract toolCall(tool: string, status: string, seconds: number | null): void;
  abstract modelCall(call: ModelCallMeasure): void;
  /** `window`: the limit's window (`day`, or `week` for an outreach rolling week). */
  abstract quotaRejection(kind: string, scope: string, window: string): void;
  abstract auditRowAppended(source: string, status: string): void;
  /**
   * One outbound fetch by what it was for (`client_metadata`) and how it ended: `ok`, or the
   * refusal (an OutboundFetchFailure, `status`, `invalid`, `rate_limited`).
   */
  abstract outboundFetch(purpose: string, outcome: string): void;
  /**
   * One HTTP request, once its response is finished or its connection closed. `route`: the
   * route's template (`/api/:userId/tasks/:taskId`), never the path, whose ids are unbounded.
   */
  abstract httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** Everything counted so far, in Prometheus text format. */
  abstract render(): Promise<string>;
}
