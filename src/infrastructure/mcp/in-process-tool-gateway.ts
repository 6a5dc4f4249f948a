import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import type { ToolDefinition } from '../../domain/agent/tools';
import { McpToolGateway } from './mcp-tool-gateway';
import { createToolsMcpServer, inProcessContext } from './tools-mcp-server';

/**
 * The agent's gateway, linked to a tools server in this process over the SDK's in-memory
 * transport: the same protocol path as any external MCP client, without a socket.
 */
export async function connectInProcessToolGateway(
  tools: readonly ToolDefinition[],
  executor: ExecuteToolCallUseCase,
): Promise<McpToolGateway> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createToolsMcpServer(tools, executor, inProcessContext).connect(serverSide);
  return McpToolGateway.connect(clientSide);
}
