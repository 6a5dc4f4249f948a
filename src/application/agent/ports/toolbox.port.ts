import type { ToolErrorWording } from '../../../domain/agent/failures';
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
  /** How this product's own error codes read to the person, and what they count as. */
  abstract readonly errorWording: ToolErrorWording;
  /** Arguments are already validated against the tool's schema. */
  abstract run(tool: string, args: ToolArguments, userId: string, options: { dryRun: boolean }): Promise<ToolResult>;
  /**
   * What the person could say in the chat to ask for this call themselves ("delete task 3"),
   * told to a caller that cannot ask them; null when there is no such sentence.
   */
  chatRequestFor(_tool: string, _args: ToolArguments): string | null {
    return null;
  }
}
