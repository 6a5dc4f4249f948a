import { describeInputProblem, findInputProblem } from '../shared/untrusted-input';
import { cleanValue } from '../shared/untrusted-text-normalisation';
import { recordedToolName, utf8Length } from './model-output';
import { isIdentityField, type SchemaCheck, type SchemaRule, type ToolCallRequest, type ToolDefinition } from './tools';

export type ToolArguments = Readonly<Record<string, unknown>>;

/** Something a caller tried that the server refused and records on the audit row. */
export interface SecurityEvent {
  readonly type: 'IDENTITY_ARGUMENT_DISCARDED';
  readonly field: string;
}

export type ToolRejectionCode = 'UNKNOWN_TOOL' | 'MALFORMED_ARGUMENTS' | 'INVALID_ARGUMENTS' | 'ARGUMENTS_TOO_LARGE';

export type ToolCallValidation =
  | {
      readonly ok: true;
      readonly tool: ToolDefinition;
      readonly arguments: ToolArguments;
      readonly securityEvents: readonly SecurityEvent[];
    }
  | {
      readonly ok: false;
      readonly code: ToolRejectionCode;
      /** Addressed to the model, so that it can correct itself. */
      readonly message: string;
      /** The first broken rule, for the sentence the person reads (friendlyToolError). */
      readonly details?: ArgumentProblem;
      readonly securityEvents: readonly SecurityEvent[];
    };

/** Which argument broke which rule: `{ field: 'title', rule: 'too_long', limit: 200 }`. */
export interface ArgumentProblem {
  readonly field: string;
  readonly rule: SchemaRule;
  readonly limit?: number;
}

/**
 * A model's call as text made a JSON object: size limit, parsing, and an object (not null,
 * an array, a number…), the checks that belong to the model's output format. Whatever the
 * model wrote, the answer is a value, never an exception. The rest of the validation is the
 * tool server's (validateToolArguments).
 */
export function parseToolCall(
  call: ToolCallRequest,
  maxArgumentBytes: number,
): { readonly ok: true; readonly arguments: ToolArguments } | (ToolCallValidation & { readonly ok: false }) {
  const name = recordedToolName(call.name);
  const bytes = utf8Length(call.arguments);
  if (bytes > maxArgumentBytes) {
    return {
      ok: false,
      code: 'ARGUMENTS_TOO_LARGE',
      message: `The arguments for ${name} are ${bytes} bytes; at most ${maxArgumentBytes} are accepted.`,
      securityEvents: [],
    };
  }
  let value: unknown;
  try {
    value = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return {
      ok: false,
      code: 'MALFORMED_ARGUMENTS',
      message: `The arguments for ${name} are not valid JSON. Send one JSON object.`,
      securityEvents: [],
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: `The arguments for ${name} must be a JSON object, not ${kindOf(value)}. Send one JSON object: {} when the tool needs none.`,
      securityEvents: [],
    };
  }
  return { ok: true, arguments: value as ToolArguments };
}

/** "null", "an array", "a number"…: what a JSON value that is not an object is, for a message. */
function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Whether a model's call would pass every check: the tool's name first, then parseToolCall and validateToolArguments. */
export function validateToolCall(
  call: ToolCallRequest,
  tools: readonly ToolDefinition[],
  maxArgumentBytes: number,
  schemas: SchemaCheck,
): ToolCallValidation {
  if (!tools.some((tool) => tool.name === call.name)) return validateToolArguments(tools, call.name, {}, schemas);
  const parsed = parseToolCall(call, maxArgumentBytes);
  return parsed.ok ? validateToolArguments(tools, call.name, parsed.arguments, schemas) : parsed;
}

/**
 * The allowlist of tools, then drops identity fields (the server alone decides whose data a call touches, and records
 * the attempt), cleans every string of the rest (cleanText), then checks it against the tool's schema with `schemas`.
 */
export function validateToolArguments(
  tools: readonly ToolDefinition[],
  name: string,
  value: unknown,
  schemas: SchemaCheck,
): ToolCallValidation {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) {
    return {
      ok: false,
      code: 'UNKNOWN_TOOL',
      message: `There is no tool named "${recordedToolName(name)}". Available tools: ${tools.map((t) => t.name).join(', ')}.`,
      securityEvents: [],
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, code: 'INVALID_ARGUMENTS', message: 'arguments must be a JSON object', securityEvents: [] };
  }
  const unsafe = findInputProblem(value, '');
  if (unsafe) {
    return { ok: false, code: 'INVALID_ARGUMENTS', message: describeInputProblem(unsafe), securityEvents: [] };
  }
  const securityEvents: SecurityEvent[] = [];
  const entries: [string, unknown][] = [];
  for (const [name, field] of Object.entries(value)) {
    if (isIdentityField(name)) securityEvents.push({ type: 'IDENTITY_ARGUMENT_DISCARDED', field: name });
    // Cleaned as a person's text is (cleanText), from the chat's model and an MCP client alike.
    else entries.push([name, cleanValue(field)]);
  }
  // fromEntries defines own properties: a `__proto__` key stays a key (and is refused by
  // the schema) instead of becoming the prototype that handlers would read through.
  const kept: Record<string, unknown> = Object.fromEntries(entries);
  const problems = schemas.violations(tool.inputSchema, kept);
  if (problems.length > 0) {
    const [first] = problems;
    const field = /^arguments\.([^.[]+)/.exec(first.path)?.[1] ?? 'arguments';
    return {
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: problems.map((problem) => problem.message).join('; '),
      details: { field, rule: first.rule, ...(first.limit === undefined ? {} : { limit: first.limit }) },
      securityEvents,
    };
  }
  return { ok: true, tool, arguments: kept, securityEvents };
}

/** JSON with object keys sorted at every depth: equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
