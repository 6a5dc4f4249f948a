/**
 * A span's attributes, named as OpenTelemetry's semantic conventions name them
 * (`gen_ai.operation.name`, `gen_ai.tool.name`, …). `undefined` ones are left out. Never a
 * secret; message content (prompts, answers, tool arguments and results) only when
 * `Tracer.capturesContent` says the operator opted in.
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

/** The span `work` runs in. */
export interface ActiveSpan {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed, with a low-cardinality `error.type` (a code, a class name): never a message. */
  fail(errorType: string): void;
}

export interface SpanOptions {
  /** `client` for a call to another service (a model provider), `server` for a request a client sent us (an MCP call), else `internal`. */
  readonly kind?: 'internal' | 'client' | 'server';
  readonly attributes: SpanAttributes;
}

/**
 * Where the agent's work becomes trace spans (docs/operations.md, "Traces"). The service's
 * tracer is a no-op unless the operator configured an OTLP endpoint.
 */
export abstract class Tracer {
  /** False for the no-op tracer: callers may skip building what only a span would read. */
  abstract readonly enabled: boolean;
  /** Whether spans may carry message content (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  abstract readonly capturesContent: boolean;
  /**
   * Runs `work` in a new span, a child of the active one, and ends the span when `work`
   * settles. A throw marks the span failed with the error's class name and is rethrown.
   */
  abstract inSpan<T>(name: string, options: SpanOptions, work: (span: ActiveSpan) => Promise<T>): Promise<T>;
}

/** `gen_ai.provider.name` as the GenAI semantic conventions spell Bridle's providers (LanguageModel.provider). */
export function genAiProviderName(provider: string): string {
  return GEN_AI_PROVIDER_NAMES[provider] ?? provider;
}

const GEN_AI_PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  'azure-openai': 'azure.ai.openai',
  gemini: 'gcp.gemini',
  offline: 'bridle.offline',
};

const NO_SPAN: ActiveSpan = { set: () => undefined, fail: () => undefined };

/** What runs when tracing is off: `work`, and nothing else. */
export class NoTracer extends Tracer {
  readonly enabled = false;
  readonly capturesContent = false;

  inSpan<T>(_name: string, _options: SpanOptions, work: (span: ActiveSpan) => Promise<T>): Promise<T> {
    return work(NO_SPAN);
  }
}

/** The default of classes built without Nest (tests, benches): tracing off. */
export const NO_TRACER: Tracer = new NoTracer();
