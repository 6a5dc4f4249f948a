/** Prices per 1 000 tokens, in the operator's currency. */
export interface TokenPricing {
  readonly inputPer1k: number;
  readonly outputPer1k: number;
}

/** Cost of a turn's tokens, rounded to a millionth. */
export function costOf(usage: { promptTokens: number; completionTokens: number }, pricing: TokenPricing): number {
  const cost = (usage.promptTokens * pricing.inputPer1k + usage.completionTokens * pricing.outputPer1k) / 1000;
  return Math.round(cost * 1e6) / 1e6;
}
