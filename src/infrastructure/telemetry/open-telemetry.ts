import type { IncomingMessage } from 'node:http';
import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { type ActiveSpan, type SpanAttributes, type SpanOptions, Tracer } from '../../application/shared/ports/tracer.port';
import { boundedValue, RECORDED_VALUE_MAX_LENGTH } from '../../domain/shared/recorded-value';
import { loggableUrl } from '../logging/log-serializers';

/**
 * Loaded only when tracing is on (telemetry/tracing.ts), before anything else: the SDK and
 * its instrumentations, which patch `http`, `express`, `pg` and `pino` as they are required.
 * Those four are loaded from node_modules even in the bundle (`http` is Node's own; the
 * others are outside it, scripts/bundle-server.mjs), so the require hooks see them.
 */

/** Query parameters whose values a client span's `url.full` never shows, on top of the instrumentation's own list. */
const SECRET_QUERY_PARAMETERS = ['key', 'api-key', 'api_key', 'access_token', 'token', 'code', 'client_secret', 'sig', 'Signature'];

/** Paths polled by probes and scrapers: a trace each would bury the requests people make. */
const UNTRACED_PATHS = new Set(['/health', '/metrics']);

/** Starts the SDK from the standard OTEL_* variables (it reads them itself) and answers the tracer for spans of Bridle's own. */
export function startOpenTelemetry(env: NodeJS.ProcessEnv): OpenTelemetryTracer {
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the SDK's detectors, win over this default.
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'bridle' })),
    // Traces only: metrics stay on GET /metrics, logs on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
        // Replaces url.path and url.query with what a log line may show: an unsubscribe link's
        // token and secret-named or secret-shaped query values masked (logging/log-serializers.ts),
        // and what the instrumentation reads from the client's headers with those values bounded.
        startIncomingSpanHook: (request) => ({ ...boundedHeaderAttributes(request), ...loggableTarget(request) }),
        redactedQueryParams: SECRET_QUERY_PARAMETERS,
        // No header is captured (headersToSpanAttributes is left unset): never Authorization or Cookie.
      }),
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // SQL text only, with its $n placeholders: never the parameters' values. A statement outside
      // any span (a sweeper, a worker's idle poll) makes no trace of its own.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      // trace_id and span_id on every log line written inside a span; the lines stay on stdout.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  return new OpenTelemetryTracer(/^true$/i.test(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? ''), sdk);
}

/**
 * The attributes the HTTP instrumentation takes from headers the client writes, where one of
 * those headers is longer than RECORDED_VALUE_MAX_LENGTH: the header's value, bounded
 * (boundedValue). `user_agent.original` is the User-Agent; `server.address` comes from
 * Forwarded, X-Forwarded-Host or Host, `client.address` from Forwarded or X-Forwarded-For,
 * whatever TRUST_PROXY says. Shorter headers give shorter values, left as the instrumentation
 * parsed them.
 */
export function boundedHeaderAttributes(request: Pick<IncomingMessage, 'headers'>): Attributes {
  const bounded: Attributes = {};
  for (const [attribute, names] of HEADER_ATTRIBUTES) {
    const values = names.flatMap((name) => headerValues(request.headers[name]));
    if (values.some((value) => value.length > RECORDED_VALUE_MAX_LENGTH)) bounded[attribute] = boundedValue(values[0]);
  }
  return bounded;
}

/** Each attribute the instrumentation records from headers, and those headers, in the order it reads them. */
const HEADER_ATTRIBUTES: readonly (readonly [string, readonly string[]])[] = [
  ['user_agent.original', ['user-agent']],
  ['server.address', ['forwarded', 'x-forwarded-host', 'host']],
  ['client.address', ['forwarded', 'x-forwarded-for']],
];

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function loggableTarget(request: IncomingMessage): Attributes {
  const target = loggableUrl(request.url ?? '/');
  const start = target.indexOf('?');
  return start === -1 ? { 'url.path': target } : { 'url.path': target.slice(0, start), 'url.query': target.slice(start + 1) };
}

/** The Tracer port on OpenTelemetry's API; its spans join the trace of the HTTP request they run in. */
export class OpenTelemetryTracer extends Tracer {
  readonly enabled = true;
  private readonly tracer = trace.getTracer('bridle');

  constructor(
    readonly capturesContent: boolean,
    private readonly sdk: Pick<NodeSDK, 'shutdown'>,
  ) {
    super();
  }

  inSpan<T>(name: string, options: SpanOptions, work: (span: ActiveSpan) => Promise<T>): Promise<T> {
    const kind = options.kind === 'client' ? SpanKind.CLIENT : options.kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL;
    return this.tracer.startActiveSpan(boundedValue(name), { kind, attributes: recordable(options.attributes) }, async (span) => {
      try {
        return await work(activeSpan(span));
      } catch (error) {
        fail(span, errorType(error));
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /** Nest's shutdown hook (the tracer is a provider of CoreModule): sends the spans still batched. */
  onApplicationShutdown(): Promise<void> {
    return this.sdk.shutdown();
  }
}

function activeSpan(span: Span): ActiveSpan {
  return { set: (attributes) => span.setAttributes(recordable(attributes)), fail: (type) => fail(span, type) };
}

function fail(span: Span, type: string): void {
  span.setAttribute('error.type', boundedValue(type));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** A code the error carries (a domain error's, a driver's), else its class: never its message, which may quote data. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return error instanceof Error ? error.constructor.name : '_OTHER';
}

/**
 * Message content (prompts, answers, tool arguments and results), recorded only when the
 * operator opted in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): bounded at
 * SPAN_CONTENT_MAX_LENGTH rather than RECORDED_VALUE_MAX_LENGTH.
 */
const CONTENT_ATTRIBUTES = new Set([
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
]);
const SPAN_CONTENT_MAX_LENGTH = 64 * 1024;
/** The most values of one list attribute recorded. */
const SPAN_LIST_MAX_LENGTH = 32;

/**
 * The span's attributes as recorded: `undefined` ones left out, and every text bounded
 * (boundedValue), whoever chose it: a JSON-RPC id or a tool name a client sent, an id of ours.
 */
export function recordable(attributes: SpanAttributes): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    const max = CONTENT_ATTRIBUTES.has(key) ? SPAN_CONTENT_MAX_LENGTH : RECORDED_VALUE_MAX_LENGTH;
    if (typeof value === 'string') kept[key] = boundedValue(value, max);
    else if (Array.isArray(value)) kept[key] = value.slice(0, SPAN_LIST_MAX_LENGTH).map((item) => boundedValue(item, max));
    else kept[key] = value as number | boolean;
  }
  return kept;
}
