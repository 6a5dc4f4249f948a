import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { Metrics } from '../../application/shared/ports/metrics.port';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** prom-client, on a registry of its own (several apps in one process never collide). */
export class PrometheusMetrics extends Metrics {
  readonly registry = new Registry();
  private readonly chatTurns = this.counter('bridle_chat_turns_total', 'Chat turns by outcome', ['status']);
  private readonly chatTurnSeconds = this.histogram('bridle_chat_turn_seconds', 'Duration of a chat turn', []);
  private readonly cycles = this.counter('bridle_outreach_cycles_total', 'Outreach cycles by outcome', ['status', 'code']);
  private readonly cycleSeconds = this.histogram('bridle_outreach_cycle_seconds', 'Duration of an outreach cycle', []);
  private readonly toolCalls = this.counter('bridle_tool_calls_total', 'Tool calls and outreach actions by tool and status', [
    'tool',
    'status',
  ]);
  private readonly toolCallSeconds = this.histogram('bridle_tool_call_seconds', 'Duration of a tool call or outreach action', ['tool']);
  private readonly modelCalls = this.counter('bridle_model_calls_total', 'Language model calls by provider and outcome', [
    'provider',
    'outcome',
  ]);
  private readonly modelCallSeconds = this.histogram('bridle_model_call_seconds', 'Duration of a language model call', ['provider']);
  private readonly tokens = this.counter('bridle_model_tokens_total', 'Tokens by provider and direction', ['provider', 'direction']);
  private readonly quotaRejections = this.counter(
    'bridle_quota_rejections_total',
    'Outreach actions and chat model calls refused by a quota or budget',
    ['kind', 'scope', 'window'],
  );
  private readonly auditRows = this.counter('bridle_audit_rows_appended_total', 'Rows appended to the audit log', ['source', 'status']);

  constructor() {
    super();
    collectDefaultMetrics({ register: this.registry, prefix: 'bridle_' });
  }

  chatTurn(status: string, seconds: number): void {
    this.chatTurns.inc({ status });
    this.chatTurnSeconds.observe(seconds);
  }

  outreachCycle(status: string, code: string | null, seconds: number): void {
    this.cycles.inc({ status, code: code ?? 'none' });
    this.cycleSeconds.observe(seconds);
  }

  toolCall(tool: string, status: string, seconds: number | null): void {
    this.toolCalls.inc({ tool, status });
    if (seconds !== null) this.toolCallSeconds.observe({ tool }, seconds);
  }

  modelCall(provider: string, outcome: 'ok' | 'error', seconds: number, tokens: { prompt: number; completion: number }): void {
    this.modelCalls.inc({ provider, outcome });
    this.modelCallSeconds.observe({ provider }, seconds);
    if (tokens.prompt) this.tokens.inc({ provider, direction: 'prompt' }, tokens.prompt);
    if (tokens.completion) this.tokens.inc({ provider, direction: 'completion' }, tokens.completion);
  }

  quotaRejection(kind: string, scope: string, window: string): void {
    this.quotaRejections.inc({ kind, scope, window });
  }

  auditRowAppended(source: string, status: string): void {
    this.auditRows.inc({ source, status });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: L[]) {
    return new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }
}
