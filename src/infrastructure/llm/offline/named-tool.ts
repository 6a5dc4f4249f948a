import type { ToolDefinition } from '../../../domain/agent/tools';
import { parseTarget, type TaskTarget, tidy, withoutCourtesy } from './phrases';

/**
 * A call to an offered tool the offline model has no intent of its own for, read from the
 * tool's own words: the sentence begins with the first word of its name or title, its verb
 * ("snooze task 2", "please snooze the dentist task", "snooze the second one" is snooze_task).
 * What follows the verb fills the arguments its input schema asks for: `number` (or `query`)
 * from the task it names, a property with choices from a word that is one of them.
 */
export interface NamedToolCall {
  readonly tool: ToolDefinition;
  /** The task the sentence names, when the tool takes one (`number` or `query`); null when it takes none. */
  readonly target: TaskTarget | null;
  /** Arguments read from the words, the task apart. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** A required argument the words do not give. */
  readonly missing: string | null;
}

/** Words of a name or title that say nothing of what the tool does. */
const FILLER = new Set(['a', 'an', 'the', 'my', 'one', 'of', 'to']);

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !FILLER.has(word));
}

/** The same word, singular or plural. */
const sameWord = (a: string, b: string) => a === b || a === `${b}s` || `${a}s` === b;

/** Whether `said` (the sentence's words) begins with the verb of `named`, and (`whole`) holds its other words too. */
function names(said: readonly string[], named: readonly string[], whole: boolean): boolean {
  if (named.length === 0 || said.length === 0 || !sameWord(said[0], named[0])) return false;
  return !whole || named.slice(1).every((word) => said.some((one) => sameWord(one, word)));
}

/**
 * The offered tool the sentence names: one whose whole name (else title) it says, else the
 * first whose verb it begins with ("snooze the second one"); null when it names none.
 */
export function namedToolCall(sentence: string, tools: readonly ToolDefinition[]): NamedToolCall | null {
  const text = withoutCourtesy(tidy(sentence));
  const said = wordsOf(text);
  const naming = (whole: boolean) => (offered: ToolDefinition) =>
    names(said, wordsOf(offered.name), whole) || names(said, wordsOf(offered.title ?? ''), whole);
  const tool = tools.find(naming(true)) ?? tools.find(naming(false));
  if (!tool) return null;
  // What follows the verb: "task 2", "the dentist task", "task 2 high".
  const rest = text.replace(/^\S+\s*/, '');
  const properties = tool.inputSchema.properties ?? {};
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const choice = schema.enum?.find((value) => typeof value === 'string' && said.includes(value.toLowerCase()));
    if (choice !== undefined) args[name] = choice;
  }
  const takesTask = 'number' in properties || 'query' in properties;
  const target = takesTask ? taskIn(rest, properties, Object.values(args)) : null;
  const given = new Set([...Object.keys(args), ...(target && target.kind !== 'missing' ? ['number', 'query'] : [])]);
  const missing = (tool.inputSchema.required ?? []).find((name) => !given.has(name)) ?? null;
  return { tool, target, arguments: args, missing };
}

/** The task `rest` names, without the words that chose other arguments; words only when the tool takes `query`. */
function taskIn(rest: string, properties: Readonly<Record<string, unknown>>, chosen: readonly unknown[]): TaskTarget {
  const words = rest.split(' ').filter((word) => !chosen.some((value) => typeof value === 'string' && value === word.toLowerCase()));
  const target = parseTarget(words.join(' '));
  return target.kind === 'query' && !('query' in properties) ? { kind: 'missing' } : target;
}
