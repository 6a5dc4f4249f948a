/**
 * The JSON Schema keywords Bridle's tools and action contracts use. Tool arguments and the
 * outreach planner's proposed actions are checked by a complete implementation (SchemaCheck,
 * the SchemaValidator port) in the dialect `$schema` names, 2020-12 when it names none (as
 * MCP says); a keyword or format it does not know refuses the schema.
 */
export interface JsonSchema {
  readonly $schema?: string;
  readonly type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'null';
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly items?: JsonSchema;
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly minLength?: number;
  readonly maxLength?: number;
  /** An ECMAScript regular expression (`u` flag), found anywhere in the value: anchor it (^…$) to cover all of it. */
  readonly pattern?: string;
  /** A format of ajv-formats: `email`, `date`, `date-time`, `uri`, `uuid`… */
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: unknown;
  /** Exactly one of these (a result that comes in several shapes: a tool's output). */
  readonly oneOf?: readonly JsonSchema[];
  /** At least one of these (a value that may be null). */
  readonly anyOf?: readonly JsonSchema[];
}

/**
 * Which rule a value broke: enough for a person-facing sentence ("That title is too long").
 * `invalid` is any other keyword (a combination such as anyOf, uniqueItems…).
 */
export type SchemaRule =
  'enum' | 'type' | 'required' | 'not_accepted' | 'too_short' | 'too_long' | 'range' | 'pattern' | 'format' | 'invalid';

export interface SchemaViolation {
  /** `arguments.title`, `args.fields[2]`: the root the caller named, then the path in the value. */
  readonly path: string;
  readonly rule: SchemaRule;
  /** The bound that was crossed (characters, items or value), for too_short, too_long and range. */
  readonly limit?: number;
  /** For the caller that sent it: names the path and the rule. */
  readonly message: string;
}

/**
 * A complete JSON Schema implementation, which the server supplies (the SchemaValidator
 * port): every way `value` breaks `schema`, at most one per path, each naming its path under
 * `root` (`arguments` unless told: `arguments.numbers[1]`).
 */
export interface SchemaCheck {
  violations(schema: JsonSchema, value: unknown, root?: string): readonly SchemaViolation[];
}

/**
 * What a person wants when a tool is called for them: one kind of change, a look at the list,
 * or a bulk change. A chat turn's intent type is made of these (turn-outcome.ts).
 */
export const TOOL_INTENTS = ['CREATE', 'READ', 'UPDATE', 'COMPLETE', 'DELETE', 'BULK'] as const;
export type ToolIntent = (typeof TOOL_INTENTS)[number];

/** A tool as the model sees it. Never has a user id among its inputs: the server supplies it. */
export interface ToolDefinition {
  readonly name: string;
  /** What a person calls it ("Add a task"): MCP's `Tool.title`, the console's label for a call. */
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { readonly type: 'object' };
  /** Changes data: audited as pending before it runs. */
  readonly mutates: boolean;
  /** Destroys data: never runs from one message; the person must confirm. */
  readonly destructive: boolean;
  /**
   * Changes one thing the person already has (completes or edits a task): a chat turn that
   * would make more than BULK_CHANGES_MAX such calls asks the person first.
   */
  readonly changesExisting?: boolean;
  /**
   * The arguments of a call the person confirmed, as the server's own dry run built them.
   * Never offered to a model; without it a confirmed call is checked against `inputSchema`.
   */
  readonly confirmedInputSchema?: JsonSchema & { readonly type: 'object' };
  /** What a person wants when the tool is called for them: the decision log's intent type (turn-outcome.ts). */
  readonly intent?: ToolIntent;
  /**
   * The data a successful run answers (never a dry run's question), as MCP's `outputSchema`
   * lists it. Never offered to a model.
   */
  readonly outputSchema?: JsonSchema & { readonly type: 'object' };
}

/** A tool call exactly as a model proposed it: `arguments` is raw text and may be anything. */
export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export type AgentMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly toolCalls?: readonly ToolCallRequest[] }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly name: string;
      /** JSON text of the tool's result or error, as the model reads it. */
      readonly content: string;
      readonly isError: boolean;
    };

/** Argument names through which a model might try to act for someone else. */
const IDENTITY_FIELD = /^(user|owner|account|actor|principal|tenant)([_-]?id)?$/i;

export function isIdentityField(name: string): boolean {
  return IDENTITY_FIELD.test(name);
}

/** The characters of a conversation as a model request carries it: texts, tool names and arguments. */
export function messageCharacters(messages: readonly AgentMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return chars;
}

/** The characters of the tools' definitions as a model request carries them. */
export function toolCharacters(tools: readonly ToolDefinition[]): number {
  return tools.reduce((sum, tool) => sum + tool.name.length + tool.description.length + JSON.stringify(tool.inputSchema).length, 0);
}
