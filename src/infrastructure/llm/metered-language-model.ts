import { type Completion, type CompletionRequest, LanguageModel } from '../../application/agent/ports/language-model.port';
import type { Metrics } from '../../application/shared/ports/metrics.port';
import { decimalText } from '../../domain/agent/money';
import { costOf, type ModelPrice, type PriceTable } from '../../domain/agent/pricing';

/**
 * Times every model call and counts its tokens and their cost, whichever provider is behind it,
 * under the provider and model the adapter was configured with. The one place a call is
 * priced: at the model that answered it when the price table names it, else at the
 * configured one; the completion carries its cost to whoever counts it next (the span, the
 * budget, the decision row).
 */
export class MeteredLanguageModel extends LanguageModel {
  constructor(
    private readonly inner: LanguageModel,
    private readonly metrics: Metrics,
    private readonly prices: PriceTable | null,
  ) {
    super();
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  override get price(): ModelPrice | null {
    return this.prices?.priceOf(this.model) ?? null;
  }

  complete(request: CompletionRequest): Promise<Completion> {
    return this.measured(() => this.inner.complete(request));
  }

  override stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    return this.measured(() => this.inner.stream(request, onText));
  }

  private async measured(call: () => Promise<Completion>): Promise<Completion> {
    const started = performance.now();
    const measure = { provider: this.provider, model: this.model };
    try {
      const completion = await call();
      const { usage } = completion;
      const price = this.prices?.priceFor(this.model, completion.model) ?? null;
      const cost = price && costOf(usage, price);
      this.metrics.modelCall({
        ...measure,
        outcome: 'ok',
        seconds: (performance.now() - started) / 1000,
        tokens: { prompt: usage.promptTokens, completion: usage.completionTokens },
        cost: cost === null ? null : Number(decimalText(cost)),
      });
      return { ...completion, cost };
    } catch (error) {
      const seconds = (performance.now() - started) / 1000;
      this.metrics.modelCall({ ...measure, outcome: 'error', seconds, tokens: { prompt: 0, completion: 0 }, cost: null });
      throw error;
    }
  }
}
