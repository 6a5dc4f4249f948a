import { type Completion, type CompletionRequest, LanguageModel } from '../../application/agent/ports/language-model.port';
import type { Metrics } from '../../application/shared/ports/metrics.port';

/** Times every model call and counts its tokens, whichever provider is behind it. */
export class MeteredLanguageModel extends LanguageModel {
  constructor(
    private readonly inner: LanguageModel,
    private readonly metrics: Metrics,
  ) {
    super();
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  complete(request: CompletionRequest): Promise<Completion> {
    return this.measured(() => this.inner.complete(request));
  }

  override stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    return this.measured(() => this.inner.stream(request, onText));
  }

  private async measured(call: () => Promise<Completion>): Promise<Completion> {
    const started = performance.now();
    try {
      const completion = await call();
      this.metrics.modelCall(this.provider, 'ok', (performance.now() - started) / 1000, {
        prompt: completion.usage.promptTokens,
        completion: completion.usage.completionTokens,
      });
      return completion;
    } catch (error) {
      this.metrics.modelCall(this.provider, 'error', (performance.now() - started) / 1000, { prompt: 0, completion: 0 });
      throw error;
    }
  }
}
