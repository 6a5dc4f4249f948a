import fc from 'fast-check';
import { amountOf, centsValue, decimalText, inCents, moneyInWords, percentUsed, reachesPercent } from '../../../../src/domain/agent/money';
import { costOf, perTokenPrice, PriceTable, readPriceTable } from '../../../../src/domain/agent/pricing';

/** A price a million tokens with at most 6 decimals, as LLM_PRICES takes it: whole micro-units, as text. */
const pricePerMillion = fc.bigInt({ min: 0n, max: 100_000_000_000n }).map((micro) => {
  const whole = micro / 1_000_000n;
  const fraction = (micro % 1_000_000n).toString().padStart(6, '0');
  return { micro, text: `${whole}.${fraction}` };
});
const tokens = fc.integer({ min: 0, max: 2_000_000 });
const call = fc.record({ promptTokens: tokens, completionTokens: tokens });

/**
 * The reference: what the tokens cost in cents, half up, computed from the price text by
 * long arithmetic on its digits (micro-units a million tokens), not by the code under test.
 */
function referenceCents(priceIn: bigint, priceOut: bigint, prompt: number, completion: number): bigint {
  // micro-units × tokens / 10⁶ tokens = micro-units; a cent is 10⁴ micro-units, 10¹⁰ of (micro × tokens).
  const microTimesTokens = priceIn * BigInt(prompt) + priceOut * BigInt(completion);
  return (microTimesTokens + 5_000_000_000n) / 10_000_000_000n;
}

describe('the price table applied to tokens', () => {
  it('is exact to the cent for any prices and token counts, however the calls split them', () => {
    fc.assert(
      fc.property(pricePerMillion, pricePerMillion, fc.array(call, { minLength: 1, maxLength: 30 }), (input, output, calls) => {
        const price = { input: perTokenPrice(input.text)!, output: perTokenPrice(output.text)! };
        const perCall = calls.reduce((sum, usage) => sum + costOf(usage, price), 0n);
        const prompt = calls.reduce((sum, usage) => sum + usage.promptTokens, 0);
        const completion = calls.reduce((sum, usage) => sum + usage.completionTokens, 0);
        // A sum of calls' costs is the cost of their summed tokens: nothing is rounded while counting.
        expect(perCall).toBe(costOf({ promptTokens: prompt, completionTokens: completion }, price));
        expect(inCents(perCall)).toBe(referenceCents(input.micro, output.micro, prompt, completion));
        // What numeric stores and gives back is the same amount.
        expect(amountOf(decimalText(perCall))).toBe(perCall);
      }),
    );
  });

  it('counts 0.1 + 0.2 as 0.3, and rounds only what a person reads, half up to the cent', () => {
    const price = { input: perTokenPrice('0.1')!, output: perTokenPrice('0.2')! };
    const cost = costOf({ promptTokens: 1_000_000, completionTokens: 1_000_000 }, price);
    expect(decimalText(cost)).toBe('0.3');
    expect(centsValue(amountOf('8.125')!)).toBe(8.13);
    expect(centsValue(amountOf('8.124999999999')!)).toBe(8.12);
    expect(moneyInWords(amountOf('8.125')!, 'EUR')).toBe('€8.13');
    expect(moneyInWords(amountOf('10')!, 'USD')).toBe('$10.00');
  });

  it('prices a call at the model that answered when the table names it, else at the one asked', () => {
    const table = new PriceTable(
      new Map([
        ['gpt-4o-mini', { input: 1n, output: 2n }],
        ['gpt-4o-mini-2024-07-18', { input: 3n, output: 4n }],
      ]),
      'USD',
    );
    expect(table.priceFor('gpt-4o-mini', 'gpt-4o-mini-2024-07-18')).toEqual({ input: 3n, output: 4n });
    expect(table.priceFor('gpt-4o-mini', 'a-snapshot-it-does-not-name')).toEqual({ input: 1n, output: 2n });
    expect(table.priceFor('another')).toBeNull();
  });
});

describe('a share of the month’s budget, at its edges', () => {
  it('reaches a percentage exactly at it, not a 10⁻¹² before', () => {
    const budget = amountOf('10')!;
    expect(reachesPercent(amountOf('8')!, budget, 80)).toBe(true);
    expect(reachesPercent(amountOf('7.999999999999')!, budget, 80)).toBe(false);
    expect(percentUsed(amountOf('8.12')!, budget)).toBe(81);
    expect(percentUsed(amountOf('9.999999999999')!, budget)).toBe(99);
    // A zero budget is spent at once.
    expect(reachesPercent(0n, 0n, 100)).toBe(true);
  });
});

describe(readPriceTable.name, () => {
  it('reads numbers and decimal strings a million tokens', () => {
    const reading = readPriceTable('{"gpt-4o-mini": {"input": 0.15, "output": "0.60"}}');
    expect(reading).toEqual({ ok: true, prices: new Map([['gpt-4o-mini', { input: 150_000n, output: 600_000n }]]) });
  });

  it.each([
    ['not json', /JSON object/],
    ['[]', /JSON object/],
    ['{}', /names no model/],
    ['{"m": 1}', /model "m": must be \{"input"/],
    ['{"m": {"input": 1}}', /model "m": "output" must be the price of a million completion tokens.*got nothing/],
    ['{"m": {"input": -1, "output": 1}}', /model "m": "input" must be .* got -1/],
    ['{"m": {"input": 0.0000001, "output": 1}}', /model "m": "input" .*at most 6 decimals/],
    ['{"m": {"input": 1, "output": 1, "cached": 1}}', /model "m": "cached" is not a field/],
    ['{"m": {"input": 1, "output": 1000000}}', /model "m": "output" must be .*from 0 to 100000/],
  ])('refuses %s, naming the model and the field', (json, problem) => {
    const reading = readPriceTable(json);
    expect(reading.ok).toBe(false);
    expect(reading.ok ? '' : reading.problem).toMatch(problem);
  });
});
