import { ConfigError, loadConfig } from '../../../src/infrastructure/config/app-config';

const OPENAI = { LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x', OPENAI_MODEL: 'gpt-4o-mini' };

describe('prices and budgets in money, as loadConfig reads them', () => {
  it('reads LLM_PRICES a million tokens in LLM_PRICES_CURRENCY, and the monthly budget', () => {
    const config = loadConfig({
      ...OPENAI,
      LLM_PRICES: '{"gpt-4o-mini": {"input": 0.15, "output": 0.6}, "gpt-4o": {"input": "2.50", "output": "10"}}',
      LLM_PRICES_CURRENCY: 'EUR',
      CHAT_MONTHLY_BUDGET: '10.50',
    });
    expect(config.prices?.currency).toBe('EUR');
    expect(config.prices?.priceOf('gpt-4o-mini')).toEqual({ input: 150_000n, output: 600_000n });
    expect(config.prices?.priceOf('gpt-4o')).toEqual({ input: 2_500_000n, output: 10_000_000n });
    expect(config.chatMonthlyBudget).toBe(10_500_000_000_000n);
  });

  it('counts nothing in money by default', () => {
    const config = loadConfig({});
    expect(config.prices).toBeNull();
    expect(config.chatMonthlyBudget).toBeNull();
  });

  it('keeps LLM_PRICE_*_PER_1K as the configured model’s price, a thousand times theirs a million tokens (the offline model too)', () => {
    const config = loadConfig({ LLM_PRICE_INPUT_PER_1K: '0.00015', LLM_PRICE_OUTPUT_PER_1K: '0.0006' });
    expect(config.prices?.models).toEqual(['bridle-offline-1']);
    expect(config.prices?.priceOf('bridle-offline-1')).toEqual({ input: 150_000n, output: 600_000n });
    expect(config.prices?.currency).toBe('USD');
  });

  it.each([
    [
      { ...OPENAI, LLM_PRICES: '{"gpt-4o": {"input": 1, "output": 2}}' },
      'LLM_PRICES',
      /no price for the configured model "gpt-4o-mini" \(OPENAI_MODEL\)/,
    ],
    [{ LLM_PRICES: '{"bridle-offline-1": {"input": 1}}' }, 'LLM_PRICES', /model "bridle-offline-1": "output"/],
    [
      { LLM_PRICES: '{"bridle-offline-1": {"input": 1, "output": 1}}', LLM_PRICE_INPUT_PER_1K: '1' },
      'LLM_PRICE_INPUT_PER_1K',
      /cannot be set with LLM_PRICES/,
    ],
    [{ CHAT_MONTHLY_BUDGET: '10' }, 'CHAT_MONTHLY_BUDGET', /needs prices/],
    [{ CHAT_DAILY_COST_BUDGET: '1' }, 'CHAT_DAILY_COST_BUDGET', /needs prices/],
    [{ LLM_PRICES_CURRENCY: 'euro' }, 'LLM_PRICES_CURRENCY', /ISO 4217/],
    [{ LLM_PRICE_INPUT_PER_1K: '0.0000000001', LLM_PRICE_OUTPUT_PER_1K: '1' }, 'LLM_PRICE_INPUT_PER_1K', /at most 9 decimals/],
  ])('refuses %j naming %s', (env, variable, problem) => {
    const attempt = () => loadConfig(env);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
    expect(attempt).toThrow(problem);
  });
});
