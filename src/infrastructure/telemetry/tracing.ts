import { NO_TRACER, type Tracer } from '../../application/shared/ports/tracer.port';
import type { startOpenTelemetry as StartOpenTelemetry } from './open-telemetry';

let current: Tracer = NO_TRACER;

/**
 * Whether the operator asked for traces: an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and neither OTEL_SDK_DISABLED=true nor
 * OTEL_TRACES_EXPORTER=none turns the SDK off.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim());
  return endpoint && !disabled && !exporters.includes('none');
}

/**
 * Starts OpenTelemetry when tracingRequested says so; otherwise loads none of it, and the
 * service's tracer stays a no-op. It must run before `http`, `express`, `pg` and `pino` are
 * loaded, which is why it is synchronous: telemetry/start-tracing.ts, the first thing the
 * server and the worker load, calls it.
 */
export function startTracing(env: NodeJS.ProcessEnv): void {
  if (current.enabled || !tracingRequested(env)) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded synchronously and only when on: see above
  const { startOpenTelemetry } = require('./open-telemetry') as { startOpenTelemetry: typeof StartOpenTelemetry };
  current = startOpenTelemetry(env);
}

/** The service's tracer: OpenTelemetry's once startTracing started it, else a no-op. */
export function currentTracer(): Tracer {
  return current;
}
