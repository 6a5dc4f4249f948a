import type { CompletionRequest } from '../../../src/application/agent/ports/language-model.port';
import { type ActiveSpan, type SpanAttributes, type SpanOptions, Tracer } from '../../../src/application/shared/ports/tracer.port';
import { PriceTable } from '../../../src/domain/agent/pricing';
import { MeteredLanguageModel } from '../../../src/infrastructure/llm/metered-language-model';
import { TracedLanguageModel } from '../../../src/infrastructure/llm/traced-language-model';
import { RecordingMetrics } from '../../fakes/recording-metrics';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

/** Every span's attributes, as the model call set them. */
class RecordingTracer extends Tracer {
  readonly enabled = true;
  readonly capturesContent = false;
  readonly spans: SpanAttributes[] = [];

  async inSpan<T>(_name: string, options: SpanOptions, work: (span: ActiveSpan) => Promise<T>): Promise<T> {
    const attributes: Record<string, unknown> = { ...options.attributes };
    this.spans.push(attributes as SpanAttributes);
    return work({ set: (more) => Object.assign(attributes, more), fail: () => undefined });
  }
}

const REQUEST: CompletionRequest = {
  systemPrompt: 'x',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
};

describe('a model call priced at the price table', () => {
  // 0.15 and 0.60 a million tokens for the model asked; 1 and 2 for the snapshot that may answer.
  const prices = new PriceTable(
    new Map([
      ['script-1', { input: 150_000n, output: 600_000n }],
      ['script-1-2026', { input: 1_000_000n, output: 2_000_000n }],
    ]),
    'EUR',
  );

  it('carries its cost on the completion, on its span next to its tokens, and in the metrics, under the model asked', async () => {
    const model = new ScriptedLanguageModel();
    // 10 prompt and 5 completion tokens (say()).
    model.use(() => say('hello'));
    const metrics = new RecordingMetrics();
    const tracer = new RecordingTracer();
    const sut = new TracedLanguageModel(new MeteredLanguageModel(model, metrics, prices), tracer);

    const completion = await sut.complete(REQUEST);

    // 10 × 0.15 / 10⁶ + 5 × 0.60 / 10⁶ = 0.0000045
    expect(completion.cost).toBe(4_500_000n);
    expect(sut.price).toEqual({ input: 150_000n, output: 600_000n });
    expect(tracer.spans[0]).toMatchObject({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'bridle.model.cost': 0.0000045,
    });
    expect(metrics.calls).toContainEqual({
      name: 'modelCall',
      args: [expect.objectContaining({ model: 'script-1', cost: 0.0000045, tokens: { prompt: 10, completion: 5 } })],
    });
  });

  it('is priced at the model that answered when the table names it', async () => {
    const model = new ScriptedLanguageModel();
    model.use(() => ({ ...say('hello'), model: 'script-1-2026' }));
    const sut = new MeteredLanguageModel(model, new RecordingMetrics(), prices);
    // 10 × 1 / 10⁶ + 5 × 2 / 10⁶ = 0.00002
    expect((await sut.complete(REQUEST)).cost).toBe(20_000_000n);
  });

  it('has no cost, on the span either, when no model is priced', async () => {
    const model = new ScriptedLanguageModel();
    model.use(() => say('hello'));
    const tracer = new RecordingTracer();
    const sut = new TracedLanguageModel(new MeteredLanguageModel(model, new RecordingMetrics(), null), tracer);
    expect((await sut.complete(REQUEST)).cost).toBeNull();
    expect(tracer.spans[0]).not.toHaveProperty('bridle.model.cost');
  });
});
