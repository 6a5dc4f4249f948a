/**
 * Money as Bridle counts it: an exact whole number of 10⁻¹² of the currency's unit (a bigint),
 * never a float. Prices have at most 6 decimals per million tokens, which is a whole number of
 * these a token, so the cost of any count of tokens is exact, and a sum of costs is the cost
 * of the summed tokens: nothing is rounded while counting. Only what a person reads is
 * rounded, half up to the cent (inCents).
 */
export type Amount = bigint;

export const AMOUNT_DECIMALS = 12;
const SCALE = 10n ** BigInt(AMOUNT_DECIMALS);
const DECIMAL = /^(\d{1,15})(?:\.(\d{1,12}))?$/;

/** `"8.12"` → the amount; null for anything but a non-negative decimal with at most 12 decimals and 15 digits before the point. */
export function amountOf(text: string): Amount | null {
  const match = DECIMAL.exec(text.trim());
  if (!match) return null;
  const [, whole, fraction = ''] = match;
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(AMOUNT_DECIMALS, '0'));
}

/** The exact decimal, without trailing zeros: `8.12`, `0.000000150000` → `0.00000015`, `10`. What SQL's numeric takes and gives. */
export function decimalText(amount: Amount): string {
  const sign = amount < 0n ? '-' : '';
  const magnitude = amount < 0n ? -amount : amount;
  const whole = magnitude / SCALE;
  let fraction = (magnitude % SCALE).toString().padStart(AMOUNT_DECIMALS, '0');
  let end = fraction.length;
  while (end > 0 && fraction[end - 1] === '0') end -= 1;
  fraction = fraction.slice(0, end);
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The amount in whole cents, half up: 8.125 → 813, 8.1249… → 812. */
export function inCents(amount: Amount): bigint {
  const cent = SCALE / 100n;
  return (amount + cent / 2n) / cent;
}

/** The amount rounded half up to the cent, as a number (for JSON and notifications): 8.125 → 8.13. */
export function centsValue(amount: Amount): number {
  return Number(inCents(amount)) / 100;
}

/** `€8.12`, `$10.00`, `CHF 3.50`: rounded half up to the cent, in the currency's own sign. */
export function moneyInWords(amount: Amount, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(
    centsValue(amount),
  );
}

/** Whether `used` is at least `percent` % of `budget`, exactly (a zero budget is used up at once). */
export function reachesPercent(used: Amount, budget: Amount, percent: number): boolean {
  return used * 100n >= budget * BigInt(percent);
}

/** The whole percent of `budget` that `used` is, rounded down (so 100 only once it is all used); 100 for a zero budget. */
export function percentUsed(used: Amount, budget: Amount): number {
  if (budget === 0n) return 100;
  return Number((used * 100n) / budget);
}
