import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolArguments } from '../../domain/agent/tool-call-validation';
import type { ToolDefinition } from '../../domain/agent/tools';
import { TOOL_META_KEYS, type ToolCallContext, ToolGateway, type ToolResult } from '../../application/agent/ports/tool-gateway.port';

/** The agent's door to tools: an MCP client, connected once, talking to the tools server. */
export class McpToolGateway extends ToolGateway {
  private tools: readonly ToolDefinition[] | undefined;

  private constructor(private readonly client: Client) {
    super();
  }

  static async connect(transport: Transport): Promise<McpToolGateway> {
    const client = new Client({ name: 'bridle-agent', version: '0.1.0' });
    await client.connect(transport);
    return new McpToolGateway(client);
  }

  /** The server's tools do not change while it runs, so they are listed once. */
  async listTools(): Promise<readonly ToolDefinition[]> {
    this.tools ??= (await this.client.listTools()).tools.map((tool) => ({
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
      mutates: tool.annotations?.readOnlyHint !== true,
      destructive: tool.annotations?.destructiveHint === true,
      changesExisting: tool._meta?.[TOOL_META_KEYS.changesExisting] === true,
    }));
    return this.tools;
  }

  async invoke(name: string, args: ToolArguments, context: ToolCallContext, signal?: AbortSignal): Promise<ToolResult> {
    const result = await this.client.callTool({ name, arguments: { ...args }, _meta: { [TOOL_META_KEYS.context]: context } }, undefined, {
      signal,
    });
    const payload = result.structuredContent ?? parseText(result.content);
    if (result.isError) {
      const error = (payload ?? {}) as { code?: string; message?: string; details?: unknown };
      return {
        ok: false,
        code: error.code ?? 'TOOL_ERROR',
        message: error.message ?? 'The tool failed.',
        ...(error.details === undefined ? {} : { details: error.details }),
      };
    }
    return { ok: true, data: payload };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function parseText(content: unknown): unknown {
  const first = Array.isArray(content) ? (content[0] as { type?: string; text?: string } | undefined) : undefined;
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  try {
    return JSON.parse(first.text);
  } catch {
    return { message: first.text };
  }
}
