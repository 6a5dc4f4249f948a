import { trace } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import fc from 'fast-check';
import { RECORDED_VALUE_MAX_LENGTH } from '../../../src/domain/shared/recorded-value';
import { boundedLogFields } from '../../../src/infrastructure/logging/log-serializers';
import { boundedHeaderAttributes, OpenTelemetryTracer } from '../../../src/infrastructure/telemetry/open-telemetry';

/**
 * Every value a client chooses is bounded where Bridle records it: a span's name and
 * attributes (through the real OpenTelemetry SDK, as the service records them), what the HTTP
 * instrumentation reads from headers, and a log line's fields.
 */
const clientText = fc.oneof(
  fc.string({ maxLength: 25_000 }),
  fc.string({ unit: 'grapheme', minLength: 100, maxLength: 1_000 }),
  fc.string({ unit: fc.constantFrom('\ud83d\ude00', 'x', '\u0000', '\n'), maxLength: 400 }),
);
/** A JSON-RPC id as the SDK lets it through (a string or a number) and as the span records it. */
const jsonRpcId = fc.oneof(clientText, fc.integer(), fc.double());
const CONTENT = new Set(['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.input.messages', 'gen_ai.output.messages']);

describe('values a client chose, where they are recorded', () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
  let tracer: OpenTelemetryTracer;

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
    tracer = new OpenTelemetryTracer(true, { shutdown: () => Promise.resolve() });
  });

  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });

  it('bounds every attribute and name of a span, the MCP call’s JSON-RPC id, session id and tool name among them', async () => {
    await fc.assert(
      fc.asyncProperty(
        jsonRpcId,
        clientText,
        clientText,
        fc.array(clientText, { maxLength: 40 }),
        fc.jsonValue({ maxDepth: 3 }),
        async (id, sessionId, tool, finishReasons, args) => {
          exporter.reset();
          const attributes = {
            'mcp.method.name': 'tools/call',
            'jsonrpc.request.id': String(id),
            'mcp.session.id': sessionId,
            'gen_ai.tool.name': tool,
            'gen_ai.response.finish_reasons': finishReasons,
            'gen_ai.tool.call.arguments': JSON.stringify(args),
          };
          await tracer.inSpan(`tools/call ${tool}`, { kind: 'server', attributes }, (span) => {
            span.set({ 'bridle.tool.error_code': tool });
            span.fail(tool);
            return Promise.resolve();
          });
          const [recorded] = exporter.getFinishedSpans();
          expect(recorded.name.length).toBeLessThanOrEqual(RECORDED_VALUE_MAX_LENGTH);
          for (const [key, value] of Object.entries(recorded.attributes)) {
            const max = CONTENT.has(key) ? 64 * 1024 : RECORDED_VALUE_MAX_LENGTH;
            for (const item of Array.isArray(value) ? value : [value]) {
              if (typeof item === 'string') expect(item.length).toBeLessThanOrEqual(max);
            }
          }
          expect(recorded.attributes['jsonrpc.request.id']).toEqual(
            String(id).length <= RECORDED_VALUE_MAX_LENGTH ? String(id) : expect.stringMatching(/characters cut\]$/),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('bounds what the HTTP instrumentation takes from the User-Agent, Host and forwarding headers', () => {
    const header = fc.oneof(clientText, fc.array(clientText, { minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(
        fc.record(
          { 'user-agent': clientText, host: clientText, forwarded: clientText, 'x-forwarded-for': header, 'x-forwarded-host': header },
          { requiredKeys: [] },
        ),
        (headers) => {
          const bounded = boundedHeaderAttributes({ headers });
          for (const value of Object.values(bounded)) expect(String(value).length).toBeLessThanOrEqual(RECORDED_VALUE_MAX_LENGTH);
          const long = (value: unknown) =>
            [value].flat().some((item) => typeof item === 'string' && item.length > RECORDED_VALUE_MAX_LENGTH);
          // Where a header is longer than the bound, the attribute it feeds is replaced by a bounded value.
          if (long(headers['user-agent'])) expect(Object.keys(bounded)).toContain('user_agent.original');
          if (long(headers.forwarded) || long(headers['x-forwarded-for'])) expect(Object.keys(bounded)).toContain('client.address');
          if (long(headers.forwarded) || long(headers['x-forwarded-host']) || long(headers.host))
            expect(Object.keys(bounded)).toContain('server.address');
        },
      ),
    );
  });

  it('bounds every text of a log line’s fields, nested ones too, but its message', () => {
    const field = fc.oneof(clientText, fc.integer(), fc.boolean());
    const fields = fc.dictionary(
      fc.constantFrom('tool', 'path', 'userId', 'reason', 'kind'),
      fc.oneof(field, fc.array(field, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), field, { maxKeys: 3 })),
    );
    fc.assert(
      fc.property(fields, clientText, (line, msg) => {
        const bounded = boundedLogFields({ ...line, msg });
        expect(bounded.msg).toBe(msg);
        const texts = (value: unknown): string[] =>
          typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(texts) : [];
        for (const key of Object.keys(line)) {
          for (const text of texts(bounded[key])) expect(text.length).toBeLessThanOrEqual(RECORDED_VALUE_MAX_LENGTH);
        }
      }),
    );
  });
});
