/**
 * The checks every value from outside passes before anything else reads it: request bodies,
 * query strings and path parameters, and what a language model writes (tool names and
 * arguments). One policy, so a person, a client and a model meet the same rules.
 */

/** Deeper than any request or tool call Bridle takes; far below what would overflow a stack. */
export const MAX_INPUT_DEPTH = 32;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Keys that would reach an object's prototype in code that copies or merges objects. No
 * request or tool argument uses them, so they are refused rather than filtered.
 */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface InputProblem {
  /** Where, as `a.b[2].c`, starting with the root's own name. */
  readonly path: string;
  /** Completes a sentence that starts with the path: "title contains a NUL character". */
  readonly problem: string;
}

/**
 * What is wrong with text that must be stored and shown: a NUL (PostgreSQL cannot store it
 * in text) or a lone UTF-16 surrogate (it would silently become U+FFFD).
 */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains a lone surrogate (not valid Unicode)';
  return null;
}

/**
 * The first problem in a parsed JSON value, or null. Walks iteratively, so a hostile depth
 * costs a bounded loop, not a stack overflow.
 */
export function findInputProblem(value: unknown, root: string, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) return { path, problem };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    // Named by its top-level field: the full path would be as long as the nesting.
    if (depth >= maxDepth) return { path: /^[^.[]*/.exec(path)![0], problem: `is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index], path: `${path}[${index}]`, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index];
      const keyPath = join(path, key);
      if (FORBIDDEN_KEYS.has(key)) return { path: keyPath, problem: 'is a reserved key, not allowed' };
      const keyProblem = textProblem(key);
      if (keyProblem) return { path: join(path, JSON.stringify(key)), problem: `key ${keyProblem}` };
      stack.push({ value: (current as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
  return null;
}

/** What textProblem finds: a NUL, or a lone surrogate. */
const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATE.source}`, 'g');

/**
 * Text that can be stored and shown whatever it held: NUL bytes and lone surrogates become
 * U+FFFD. For what Bridle records about refused input (the input itself was refused).
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A JSON value with every string and key made storable, and anything past the depth limit cut. */
export function storableValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_INPUT_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => storableValue(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [storableText(key), storableValue(field, depth + 1)]));
}

/** "title contains a NUL character", "__proto__ is a reserved key, not allowed". */
export function describeInputProblem({ path, problem }: InputProblem): string {
  return `${path} ${problem}`;
}

/** The root's name disappears for top-level fields: `title`, not `body.title`. */
function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** A whole number written the one way Bridle writes it: decimal digits, no sign, no leading zero. */
export function parseCanonicalInteger(text: string): number | null {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}
