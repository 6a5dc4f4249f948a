import { currentTracer, startTracing, tracingRequested } from '../../../src/infrastructure/telemetry/tracing';

describe(tracingRequested.name, () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

  it('asks for traces when an OTLP endpoint is set, for all signals or for traces alone', () => {
    expect(tracingRequested(endpoint)).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('does not without an endpoint, whatever else OTEL_* says', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'bridle-eu', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });

  it('does not when the SDK is disabled or the traces exporter is none', () => {
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  });
});

describe(startTracing.name, () => {
  it('leaves the no-op tracer in place when tracing is not asked for', () => {
    startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' });
    expect(currentTracer().enabled).toBe(false);
  });
});
