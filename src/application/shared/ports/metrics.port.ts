/** What the service counts and times for operators (`GET /metrics`). Durations in seconds. */
export abstract class Metrics {
  abstract chatTurn(status: string, seconds: number): void;
  abstract outreachCycle(status: string, code: string | null, seconds: number): void;
  /** `seconds` null: refused before it ran, so counted but not timed. */
  abstract toolCall(tool: string, status: string, seconds: number | null): void;
  abstract modelCall(provider: string, outcome: 'ok' | 'error', seconds: number, tokens: { prompt: number; completion: number }): void;
  /** `window`: the limit's window (`day`, or `week` for an outreach rolling week). */
  abstract quotaRejection(kind: string, scope: string, window: string): void;
  abstract auditRowAppended(source: string, status: string): void;
  /** Everything counted so far, in Prometheus text format. */
  abstract render(): Promise<string>;
}
