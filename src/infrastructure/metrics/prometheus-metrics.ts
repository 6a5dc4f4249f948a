import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { Metrics, type ModelCallMeasure } from '../../application/shared/ports/metrics.port';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * OpenTelemetry's advice for `http.server.request.duration`, and 30 and 60 s on top: a chat
 * turn may take up to AGENT_TURN_TIMEOUT_MS (30 s by default, up to 300 s).
 */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60];

/**
 * Gauges of prom-client's defaults whose names end in `_total`, which Prometheus keeps for
 * counters (`promtool check metrics` refuses them). Each is the sum of the gauge without the
 * suffix (`nodejs_active_handles{type}`), so nothing is lost.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

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
  private readonly modelCalls = this.counter('bridle_model_calls_total', 'Language model calls by provider, model and outcome', [
    'provider',
    'model',
    'outcome',
  ]);
  private readonly modelCallSeconds = this.histogram('bridle_model_call_seconds', 'Duration of a language model call', [
    'provider',
    'model',
  ]);
  private readonly tokens = this.counter('bridle_model_tokens_total', 'Tokens the provider reported, by provider, model and direction', [
    'provider',
    'model',
    'direction',
  ]);
  private readonly cost = this.counter(
    'bridle_model_cost_total',
    'Cost of the model calls at the price table (LLM_PRICES), in LLM_PRICES_CURRENCY, by provider and configured model',
    ['provider', 'model'],
  );
  private readonly quotaRejections = this.counter(
    'bridle_quota_rejections_total',
    'Outreach actions and chat model calls refused by a quota or budget',
    ['kind', 'scope', 'window'],
  );
  private readonly auditRows = this.counter('bridle_audit_rows_appended_total', 'Rows appended to the audit log', ['source', 'status']);
  private readonly outboundFetches = this.counter(
    'bridle_outbound_fetches_total',
    'Fetches Bridle made to addresses others chose (client metadata documents), by purpose and outcome',
    ['purpose', 'outcome'],
  );
  private readonly httpRequests = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, by method, route template and status code',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    super();
    // No prefix: dashboards made for Node.js services look for process_* and nodejs_*.
    collectDefaultMetrics({ register: this.registry });
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
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

  modelCall({ provider, model, outcome, seconds, tokens, cost }: ModelCallMeasure): void {
    this.modelCalls.inc({ provider, model, outcome });
    this.modelCallSeconds.observe({ provider, model }, seconds);
    if (tokens.prompt) this.tokens.inc({ provider, model, direction: 'prompt' }, tokens.prompt);
    if (tokens.completion) this.tokens.inc({ provider, model, direction: 'completion' }, tokens.completion);
    if (cost) this.cost.inc({ provider, model }, cost);
  }

  quotaRejection(kind: string, scope: string, window: string): void {
    this.quotaRejections.inc({ kind, scope, window });
  }

  auditRowAppended(source: string, status: string): void {
    this.auditRows.inc({ source, status });
  }

  outboundFetch(purpose: string, outcome: string): void {
    this.outboundFetches.inc({ purpose, outcome });
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.observe({ http_request_method: method, http_route: route, http_response_status_code: status }, seconds);
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
