import type { ToolDefinition } from '../../../domain/agent/tools';
import type { SecurityEvent, ToolArguments } from '../../../domain/agent/tool-call-validation';

/** Built by the server for every call; never taken from the model. */
export interface ToolCallContext {
  readonly userId: string;
  readonly source: 'chat' | 'mcp' | 'outreach';
  readonly conversationId?: string;
  readonly decisionId?: string;
  /** Resolve and describe what the call would do, change nothing. */
  readonly dryRun?: boolean;
  /** Exactly the call the person said yes to, as the server's dry run built it; never set from outside. */
  readonly confirmed?: boolean;
  /** Found before the call reached the gateway; recorded on the audit row. */
  readonly securityEvents?: readonly SecurityEvent[];
  /**
   * The agent refused this call before sending it (its arguments are not a JSON object, are
   * too large, name no tool, or the turn's tool calls are spent): nothing runs, the server
   * records the refusal with the arguments as Bridle keeps them and answers it. Never set
   * from outside.
   */
  readonly refusal?: {
    readonly code: string;
    readonly message: string;
    readonly details?: unknown;
    readonly arguments: ToolArguments | string;
  };
}

export type ToolResult =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly details?: unknown };

/**
 * `_meta` keys shared by Bridle's tools server and its gateway: the server-built call
 * context the in-process agent passes with a call, and a tool's mark that it changes an
 * existing task (ToolDefinition.changesExisting).
 */
export const TOOL_META_KEYS = { context: 'bridle/context', changesExisting: 'bridle/changesExisting' } as const;

/** The agent's only door to data. */
export abstract class ToolGateway {
  abstract listTools(): Promise<readonly ToolDefinition[]>;
  /** Failed calls are results (`ok: false`) the model reads; only transport failures throw. */
  abstract invoke(name: string, args: ToolArguments, context: ToolCallContext, signal?: AbortSignal): Promise<ToolResult>;
}
