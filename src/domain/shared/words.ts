/** How a sentence names several things; every list Bridle writes for a person goes through here. */

/** Things a list names one by one; past this it names the first few and counts the rest. */
export const NAMED_ONE_BY_ONE_MAX = 10;
const NAMED_WHEN_MANY = 3;

/** "a", "a and b", "a, b and c". */
export function joinedWithAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "a", "a or b", "a, b or c". */
export function joinedWithOr(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** joinedWithAnd, or for a long list "a, b, c and 127 more". */
export function inBrief(items: readonly string[]): string {
  return items.length > NAMED_ONE_BY_ONE_MAX
    ? joinedWithAnd([...items.slice(0, NAMED_WHEN_MANY), `${items.length - NAMED_WHEN_MANY} more`])
    : joinedWithAnd(items);
}

/** `text` within `max` characters: a longer one is cut and ends with "…". */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max - 1);
  // Never half of a character outside the Basic Multilingual Plane.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head.trimEnd()}…`;
}

/** How much of a name (a task's title, words to find one by) a sentence of the server's quotes. */
export const QUOTED_NAME_CHARS = 60;

/** "'Buy milk'": a name as a sentence of the server's quotes it, cut to QUOTED_NAME_CHARS. */
export function quoted(name: string): string {
  return `'${clipped(name, QUOTED_NAME_CHARS)}'`;
}
