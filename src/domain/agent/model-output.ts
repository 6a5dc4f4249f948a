import { storableText, storableValue } from '../shared/untrusted-input';
import { boundedValue } from '../shared/recorded-value';
import type { ToolCallRequest } from './tools';

/**
 * What Bridle keeps of what a language model wrote. The model is an untrusted user: its
 * text is stored and shown only storable (no NUL, no lone surrogate) and bounded in size
 * (its answer's words: see reply.ts).
 */

/** What a tool name may be: the MCP convention's characters, and short. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const TOOL_NAME_MAX_LENGTH = 64;

export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * A tool call as a provider's wire format carried it: each field as it came, of any JSON type
 * (or missing: undefined). Adapters only pick the fields out (they never read into them);
 * `providerToolCalls` is the one reading of them.
 */
export interface WireToolCall {
  readonly id: unknown;
  readonly name: unknown;
  readonly arguments: unknown;
}

/** A provider's call id Bridle keeps: printable ASCII without spaces, 1 to 128 characters. */
const TOOL_CALL_ID = /^[\x21-\x7E]{1,128}$/;

/**
 * The calls of one model answer as the agent takes them, whatever each field held: the one
 * validation of a provider's tool calls, which every adapter's answer goes through.
 * - `id` only pairs a call with its result (the adapter sends both back under it). A string
 *   of printable ASCII, 1 to 128 characters, not already used in this answer, is kept as it
 *   came; anything else (missing, null, a number, an object, empty, too long, a control
 *   character, a repeat) gets one of Bridle's own, `bridle-call-{position}-{index}`, unique
 *   in the answer (`position`: how many messages the request had, so that two answers of a
 *   turn give different ids).
 * - `name` is read by toolNameText, `arguments` by toolArgumentsText: a name that is no
 *   string, and arguments that are no JSON object, are refused when the call is validated
 *   (an unknown tool, or invalid arguments, that the model is told about and the audit log
 *   records).
 * Total: whatever the input, the answer is a list of well-formed calls, never an exception.
 */
export function providerToolCalls(calls: readonly WireToolCall[], position: number): ToolCallRequest[] {
  const used = new Set<string>();
  const ids = calls.map((call) => {
    const id = typeof call.id === 'string' && TOOL_CALL_ID.test(call.id) && !used.has(call.id) ? call.id : null;
    if (id !== null) used.add(id);
    return id;
  });
  return calls.map((call, index) => {
    let id = ids[index];
    if (id === null) {
      id = `bridle-call-${position}-${index}`;
      while (used.has(id)) id = `${id}-`;
      used.add(id);
    }
    return { id, name: toolNameText(call.name), arguments: toolArgumentsText(call.arguments) };
  });
}

/**
 * A list of a wire format (a message's tool calls, a response's parts) as entries, whatever
 * came: missing or null is none, a list is its entries, and any other value one entry (which
 * the reader of an entry then takes field by field).
 */
export function wireEntries(raw: unknown): readonly unknown[] {
  if (raw === undefined || raw === null) return [];
  return Array.isArray(raw) ? raw : [raw];
}

/** The named field of a wire value, or undefined when the value is no object (null, a list, a string…). */
export function wireField(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

/**
 * A tool call's arguments as the text the agent parses (parseToolCall), whatever a provider
 * sent. OpenAI's wire format says a JSON string, kept as it came; some OpenAI-compatible
 * servers send the object itself, and Gemini always does: it is written as its JSON, so it is
 * taken as that object. No arguments at all (undefined) are '', which parseToolCall reads as
 * {}. Anything else is written as JSON too, so that null, an array, a number or a boolean
 * reach parseToolCall as what they are, and are refused there.
 */
export function toolArgumentsText(raw: unknown): string {
  if (raw === undefined) return '';
  if (typeof raw === 'string') return raw;
  // A value parsed from JSON always has a JSON text; anything else (a function) is no arguments.
  return JSON.stringify(raw) ?? '';
}

/**
 * A tool call's name as the agent looks it up, whatever a provider sent: a string as it came;
 * anything else (a number, an object, null from a server that bends the wire format) as its
 * JSON, which names no tool, so the call is refused as an unknown tool the model is told about.
 */
function toolNameText(raw: unknown): string {
  return typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? '');
}

/**
 * The arguments of a streamed tool call, from the pieces its deltas carried: the text pieces
 * joined (each as toolArgumentsText takes it). A null piece beside others carries nothing
 * (some servers send one with the call's name); a call whose only pieces are null has null.
 */
export function streamedArgumentsText(pieces: readonly unknown[]): string {
  const present = pieces.filter((piece) => piece !== undefined && piece !== null);
  if (present.length === 0) return pieces.includes(null) ? 'null' : '';
  return present.map(toolArgumentsText).join('');
}

/**
 * A tool name as Bridle may record it, whatever the caller sent (a model, an MCP client):
 * storable, and bounded (boundedValue) to the 64 characters a recorded name has.
 */
export function recordedToolName(name: string): string {
  if (TOOL_NAME.test(name)) return name;
  return boundedValue(storableText(name), TOOL_NAME_MAX_LENGTH);
}

/**
 * A refused call's arguments as Bridle records them: parsed when they are JSON (so secrets
 * are masked by key like any other arguments), else the text, made storable; past the size
 * limit only their size and SHA-256. Redaction happens where records are written.
 */
export async function recordedArguments(text: string, maxArgumentBytes: number): Promise<Readonly<Record<string, unknown>> | string> {
  const bytes = utf8Length(text);
  if (bytes > maxArgumentBytes) return { omitted: 'too large', bytes, sha256: await sha256Hex(text) };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return storableValue(parsed) as Record<string, unknown>;
  } catch {
    // Not JSON: kept as text.
  }
  return storableText(text);
}

/** The standard Web Crypto API, a global of every JavaScript runtime Bridle runs on. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Longest name of an answering model taken from a provider's answer; a longer one is not a model's name. */
const ANSWERED_MODEL_MAX = 200;

/** `{model}` when a provider's answer named the model that answered (a non-blank string of at most 200 characters), else nothing. */
export function answeredModel(value: unknown): { readonly model?: string } {
  return typeof value === 'string' && value.trim() !== '' && value.length <= ANSWERED_MODEL_MAX ? { model: value } : {};
}
