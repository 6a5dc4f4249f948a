import type { ToolDefinition } from '../../../domain/agent/tools';
import type { SecurityEvent, ToolArguments } from '../../../domain/agent/tool-call-validation';

/** Who makes a call, and in which turn: built by the server, never taken from the model. */
export interface ToolCaller {
  readonly userId: string;
  /** `api`: the person's own request to `POST /api/:userId/tools/:name`. */
  readonly source: 'chat' | 'mcp' | 'outreach' | 'api';
  readonly conversationId?: string;
  readonly decisionId?: string;
  /** Found before the call reached the gateway; recorded on the audit row. */
  readonly securityEvents?: readonly SecurityEvent[];
}

/**
 * A call the agent refused before sending it (its arguments are not a JSON object, are too
 * large, name no tool, or the turn's tool calls are spent), with the arguments as Bridle
 * keeps them.
 */
export interface ToolCallRefusal {
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
  readonly arguments: ToolArguments | string;
}

/**
 * What the server does with a call. Only Bridle's own code sets anything but `run`, and
 * never from what a caller sent (see the tools server's channels).
 * - `run`: validate, apply the policy in force (docs/policies.md: a destructive call needs the person by default), run.
 * - `dry-run`: resolve and describe what the call would do; change nothing.
 * - `confirmed`: exactly the call the person said yes to, as the server's dry run built it.
 * - `refused`: nothing runs; the server records the refusal and answers with it.
 */
export type ToolCallMode =
  | { readonly kind: 'run' }
  | { readonly kind: 'dry-run' }
  | { readonly kind: 'confirmed' }
  | { readonly kind: 'refused'; readonly refusal: ToolCallRefusal };

export const TOOL_CALL_MODE_KINDS: readonly ToolCallMode['kind'][] = ['run', 'dry-run', 'confirmed', 'refused'];

/** Built by the server for every call; never taken from the model. */
export interface ToolCallContext extends ToolCaller {
  readonly mode: ToolCallMode;
}

export type ToolResult =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly details?: unknown };

/**
 * `_meta` keys shared by Bridle's tools server and its gateway: the server-built call
 * context (its `mode` included) the in-process agent passes with a call, and a tool's mark that it changes an
 * existing task (ToolDefinition.changesExisting).
 */
export const TOOL_META_KEYS = { context: 'bridle/context', changesExisting: 'bridle/changesExisting' } as const;

/** The agent's only door to data. */
export abstract class ToolGateway {
  abstract listTools(): Promise<readonly ToolDefinition[]>;
  /** Failed calls are results (`ok: false`) the model reads; only transport failures throw. */
  abstract invoke(name: string, args: ToolArguments, context: ToolCallContext, signal?: AbortSignal): Promise<ToolResult>;
}
