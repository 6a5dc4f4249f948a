import { storableText, storableValue } from '../shared/untrusted-input';
import { boundedValue } from '../shared/recorded-value';

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
 * A tool call's arguments as the text the agent parses (parseToolCall), whatever a provider
 * sent: every adapter reads them through here. OpenAI's wire format says a JSON string, kept
 * as it came; some OpenAI-compatible servers send the object itself, and Gemini always does:
 * it is written as its JSON, so it is taken as that object. No arguments at all (undefined)
 * are '', which parseToolCall reads as {}. Anything else is written as JSON too, so that null,
 * an array, a number or a boolean reach parseToolCall as what they are, and are refused there.
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
export function toolNameText(raw: unknown): string {
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
