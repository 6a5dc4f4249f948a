import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ExecuteToolCallUseCase } from '../../application/agent/execute-tool-call.use-case';
import { McpToolGateway } from './mcp-tool-gateway';
import { createToolsMcpServer, inProcessChannel } from './tools-mcp-server';

/**
 * The agent's gateway, linked to a tools server in this process over the SDK's in-memory
 * transport: the same protocol path as any external MCP client, without a socket.
 */
export async function connectInProcessToolGateway(executor: ExecuteToolCallUseCase): Promise<McpToolGateway> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createToolsMcpServer(executor, inProcessChannel).connect(serverSide);
  return McpToolGateway.connect(clientSide);
}
