/**
 * The globs a policy names tools and domains with: `*` any run of characters, `?` one; every
 * other character stands for itself. Matching is whole-string. Written here rather than taken
 * from a glob library: the domain imports no package, and path globs' rules (`/`, `**`,
 * braces, negation) mean nothing for a tool's or a domain's name.
 */

/** A tool's name, or a glob of them: lowercase letters, digits, `_` and the wildcards. */
export const TOOL_GLOB = /^[a-z0-9_*?]{1,64}$/;

export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/** Whether `text` matches `pattern` as a whole. Iterative, with one backtrack point: linear-ish, never exponential. */
export function globMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === text[t])) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether a rule's tool name or glob names `tool`: a glob never names a subject that is matched by its own name only (CHAT_TURN). */
export function namesTool(pattern: string, tool: { readonly name: string; readonly byNameOnly?: boolean }): boolean {
  return tool.byNameOnly ? pattern === tool.name : globMatches(pattern, tool.name);
}
