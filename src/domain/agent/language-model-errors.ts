/**
 * What a language-model adapter throws. Adapters translate provider errors into this
 * family; the agent core classifies them (failures.ts) without knowing any provider.
 */
export class LanguageModelError extends Error {
  constructor(message: string, options?: { cause?: unknown; readonly requestId?: string }) {
    super(message, options);
    this.name = new.target.name;
    this.requestId = options?.requestId;
  }

  /** The provider's id for the failed request, when it sent one. */
  readonly requestId: string | undefined;
}

export class LanguageModelRateLimitError extends LanguageModelError {}
export class LanguageModelTimeoutError extends LanguageModelError {}
export class LanguageModelUnavailableError extends LanguageModelError {}
export class LanguageModelBadRequestError extends LanguageModelError {}
export class LanguageModelContentFilterError extends LanguageModelError {}

/** A JSON-mode answer that was still not one valid object after one re-ask. */
export class LanguageModelInvalidJsonError extends LanguageModelError {
  constructor(
    message: string,
    readonly problems: readonly string[],
  ) {
    super(message);
  }
}
