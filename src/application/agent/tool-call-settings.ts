import type { McpDestructiveToolMode } from '../../domain/agent/confirmation';

export abstract class ToolCallSettings {
  /** What a destructive tool called over MCP does, the person not being there to ask. */
  abstract readonly mcpDestructiveTools: McpDestructiveToolMode;
  /** Where the person finds the console (PUBLIC_BASE_URL), named when they must confirm there. */
  abstract readonly consoleUrl?: string;
}
