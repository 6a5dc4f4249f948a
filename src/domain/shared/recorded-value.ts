/**
 * The most characters of one value a client chose that Bridle records where it records such
 * values: a trace span's attribute, a log line's field, a database row. A JSON-RPC id, an MCP
 * session id, a tool name, an MCP client's name and version, a User-Agent: each is the
 * client's to choose, and each could be as long as a request allows (a 20 000-character id).
 */
export const RECORDED_VALUE_MAX_LENGTH = 128;

/** What stands for the part of a text that was cut. */
export function cutMark(cutLength: number): string {
  return `[… ${cutLength} characters cut]`;
}

/**
 * `value` as text of at most `max` characters (UTF-16 code units, as `String.length` counts):
 * a string as it is, a number, bigint or boolean as text, anything else as its JSON. Past
 * `max` the end is cut and marked (`cutMark`), the mark counted in `max`, and never half of a
 * surrogate pair kept. The one way a value a client chose is bounded where it is recorded.
 */
export function boundedValue(value: unknown, max: number = RECORDED_VALUE_MAX_LENGTH): string {
  const text = asText(value);
  if (text.length <= max) return text;
  let keep = Math.max(0, max - cutMark(text.length).length);
  if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) keep -= 1;
  return `${text.slice(0, keep)}${cutMark(text.length - keep)}`.slice(0, max);
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return typeof value;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    // A cycle, a bigint inside: what it is, not what it holds.
    return Object.prototype.toString.call(value);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
