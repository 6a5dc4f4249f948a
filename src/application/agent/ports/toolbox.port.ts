import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { ToolDefinition } from '../../../domain/agent/tools';
import type { ToolResult } from './tool-gateway.port';

/** What a dry run of a destructive tool answers: the exact call to confirm, and how to ask. */
export interface DryRunResult {
  readonly prompt: string;
  readonly arguments: ToolArguments;
  readonly preview: unknown;
}

/** The tools of one product, run for one user. Served over MCP by the interfaces layer. */
export abstract class Toolbox {
  abstract readonly definitions: readonly ToolDefinition[];
  /** Arguments are already validated against the tool's schema. */
  abstract run(tool: string, args: ToolArguments, userId: string, options: { dryRun: boolean }): Promise<ToolResult>;
}
