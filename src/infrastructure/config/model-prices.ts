import { type Amount, amountOf } from '../../domain/agent/money';
import { type ModelPrice, PriceTable } from '../../domain/agent/pricing';
import { OFFLINE_MODEL } from '../llm/offline/offline-model-name';
import type { SettingValues } from './settings';

/** A setting that cannot be used as given; loadConfig makes it a ConfigError naming `variable`. */
export class PriceSettingProblem extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** The model the configuration asks for, and the setting that names it. */
export function configuredModel(values: SettingValues): { readonly model: string; readonly setting: string } {
  switch (values.LLM_PROVIDER) {
    case 'offline':
      return { model: OFFLINE_MODEL, setting: 'LLM_PROVIDER=offline' };
    case 'openai':
      return { model: values.OPENAI_MODEL ?? '', setting: 'OPENAI_MODEL' };
    case 'azure-openai':
      return { model: values.AZURE_OPENAI_DEPLOYMENT ?? '', setting: 'AZURE_OPENAI_DEPLOYMENT' };
    case 'gemini':
      return { model: values.GEMINI_MODEL ?? '', setting: 'GEMINI_MODEL' };
  }
}

/**
 * The price table: LLM_PRICES, or the older LLM_PRICE_*_PER_1K as the configured model's
 * price (1 000 times theirs a million tokens); null when neither is set. Refused: both ways
 * at once, one of the older pair without the other, and a table that does not price the
 * configured model (no call could be counted).
 * @throws PriceSettingProblem
 */
export function modelPrices(values: SettingValues): PriceTable | null {
  const { model, setting } = configuredModel(values);
  const input = values.LLM_PRICE_INPUT_PER_1K;
  const output = values.LLM_PRICE_OUTPUT_PER_1K;
  if (values.LLM_PRICES !== undefined) {
    if (input !== undefined)
      throw new PriceSettingProblem('LLM_PRICE_INPUT_PER_1K', 'cannot be set with LLM_PRICES: price the model there');
    if (output !== undefined)
      throw new PriceSettingProblem('LLM_PRICE_OUTPUT_PER_1K', 'cannot be set with LLM_PRICES: price the model there');
    if (!values.LLM_PRICES.has(model)) {
      const named = [...values.LLM_PRICES.keys()].map((name) => `"${name}"`).join(', ');
      throw new PriceSettingProblem('LLM_PRICES', `has no price for the configured model "${model}" (${setting}); it names ${named}`);
    }
    return new PriceTable(values.LLM_PRICES, values.LLM_PRICES_CURRENCY);
  }
  if (input === undefined && output === undefined) return null;
  if (input === undefined) throw new PriceSettingProblem('LLM_PRICE_INPUT_PER_1K', 'is required when LLM_PRICE_OUTPUT_PER_1K is set');
  if (output === undefined) throw new PriceSettingProblem('LLM_PRICE_OUTPUT_PER_1K', 'is required when LLM_PRICE_INPUT_PER_1K is set');
  const price: ModelPrice = {
    input: perTokenOf1k(input, 'LLM_PRICE_INPUT_PER_1K'),
    output: perTokenOf1k(output, 'LLM_PRICE_OUTPUT_PER_1K'),
  };
  return new PriceTable(new Map([[model, price]]), values.LLM_PRICES_CURRENCY);
}

/** The prices and the budgets in money, which need them. @throws PriceSettingProblem */
export function moneySettings(values: SettingValues): {
  readonly prices: PriceTable | null;
  readonly dailyCost: Amount | null;
  readonly monthly: Amount | null;
} {
  const prices = modelPrices(values);
  for (const variable of ['CHAT_DAILY_COST_BUDGET', 'CHAT_MONTHLY_BUDGET'] as const) {
    if (values[variable] !== undefined && prices === null)
      throw new PriceSettingProblem(variable, 'needs prices to count cost: set LLM_PRICES');
  }
  return {
    prices,
    dailyCost: moneySetting(values.CHAT_DAILY_COST_BUDGET, 'CHAT_DAILY_COST_BUDGET'),
    monthly: moneySetting(values.CHAT_MONTHLY_BUDGET, 'CHAT_MONTHLY_BUDGET'),
  };
}

/** An amount of money in a setting (a budget), exactly. @throws PriceSettingProblem */
function moneySetting(value: number | undefined, variable: string): Amount | null {
  if (value === undefined) return null;
  const amount = amountOf(String(value));
  if (amount === null) throw new PriceSettingProblem(variable, `must be an amount with at most 12 decimals, got "${value}"`);
  return amount;
}

/** A price per 1 000 tokens as a price a token: exact with at most 9 decimals. */
function perTokenOf1k(value: number, variable: string): Amount {
  const amount = amountOf(String(value));
  if (amount === null || amount % 1000n !== 0n) {
    throw new PriceSettingProblem(variable, `must be a price with at most 9 decimals, got "${value}"`);
  }
  return amount / 1000n;
}
