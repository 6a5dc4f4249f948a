import { type Amount, amountOf } from './money';

/** A model's prices, in Amount (10⁻¹² of the currency) a token: exact, see money.ts. */
export interface ModelPrice {
  readonly input: Amount;
  readonly output: Amount;
}

/** At most this much a million tokens, in the currency: a bound on a typing mistake, far above any model's list price. */
export const PRICE_PER_MILLION_MAX = 100_000;
const PER_MILLION = /^\d{1,6}(\.\d{1,6})?$/;
const MODEL_NAME_MAX = 200;

/**
 * The price table of LLM_PRICES: each model's price a million prompt (`input`) and completion
 * (`output`) tokens, in one currency. A call is priced at the model that answered it when the
 * table names that model (a provider may answer with a dated snapshot of the model asked for),
 * else at the model asked for, which the configuration checked is in the table.
 */
export class PriceTable {
  constructor(
    private readonly prices: ReadonlyMap<string, ModelPrice>,
    /** ISO 4217, upper case: `USD`, `EUR`. */
    readonly currency: string,
  ) {}

  priceOf(model: string): ModelPrice | null {
    return this.prices.get(model) ?? null;
  }

  /** The price a call is counted at: of `answered` when the table names it, else of `asked`; null when it names neither. */
  priceFor(asked: string, answered?: string | null): ModelPrice | null {
    return (answered ? this.priceOf(answered) : null) ?? this.priceOf(asked);
  }

  get models(): readonly string[] {
    return [...this.prices.keys()];
  }
}

/** What tokens cost at a price: exact (no rounding: see money.ts). */
export function costOf(usage: { readonly promptTokens: number; readonly completionTokens: number }, price: ModelPrice): Amount {
  return BigInt(usage.promptTokens) * price.input + BigInt(usage.completionTokens) * price.output;
}

/** A price a million tokens, `0.15` or `"0.15"`, as a price a token; null when it is no such price. */
export function perTokenPrice(value: unknown): Amount | null {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : null;
  if (text === null || !PER_MILLION.test(text)) return null;
  const perMillion = amountOf(text);
  if (perMillion === null || perMillion > amountOf(String(PRICE_PER_MILLION_MAX))!) return null;
  // At most 6 decimals a million tokens: a whole number of 10⁻¹² a token.
  return perMillion / 1_000_000n;
}

export type PriceTableReading =
  { readonly ok: true; readonly prices: Map<string, ModelPrice> } | { readonly ok: false; readonly problem: string };

/**
 * Reads LLM_PRICES: a JSON object from model name to `{input, output}`, each a price a
 * million tokens (a number or a decimal string, at most 6 decimals, 0 to 100 000). The
 * problem names the model and the field.
 */
export function readPriceTable(json: string): PriceTableReading {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, problem: 'must be a JSON object such as {"gpt-4o-mini": {"input": 0.15, "output": 0.60}}' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, problem: 'must be a JSON object from model name to {input, output}' };
  }
  const prices = new Map<string, ModelPrice>();
  for (const [model, entry] of Object.entries(parsed as Record<string, unknown>)) {
    if (model.trim() === '' || model.length > MODEL_NAME_MAX) {
      return { ok: false, problem: `names a model "${model.slice(0, 40)}": a model's name is 1 to ${MODEL_NAME_MAX} characters` };
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return { ok: false, problem: `model "${model}": must be {"input": …, "output": …}` };
    }
    const extra = Object.keys(entry).find((key) => key !== 'input' && key !== 'output');
    if (extra !== undefined) return { ok: false, problem: `model "${model}": "${extra}" is not a field (input, output)` };
    const price: Partial<Record<'input' | 'output', Amount>> = {};
    for (const field of ['input', 'output'] as const) {
      const value = (entry as Record<string, unknown>)[field];
      const perToken = value === undefined ? null : perTokenPrice(value);
      if (perToken === null) {
        return {
          ok: false,
          problem:
            `model "${model}": "${field}" must be the price of a million ${field === 'input' ? 'prompt' : 'completion'} tokens, ` +
            `a decimal from 0 to ${PRICE_PER_MILLION_MAX} with at most 6 decimals, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`,
        };
      }
      price[field] = perToken;
    }
    prices.set(model, { input: price.input!, output: price.output! });
  }
  if (prices.size === 0) return { ok: false, problem: 'names no model' };
  return { ok: true, prices };
}
