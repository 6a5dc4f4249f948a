import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { AgentLoop } from '../application/agent/agent-loop';
import { ExecuteToolCallUseCase } from '../application/agent/execute-tool-call.use-case';
import { ToolCallSettings } from '../application/agent/tool-call-settings';
import { ToolGateway } from '../application/agent/ports/tool-gateway.port';
import { Toolbox } from '../application/agent/ports/toolbox.port';
import { TodoToolbox } from '../application/todo/tools/todo-toolbox';
import { TodoToolKit } from '../application/todo/tools/todo-tool-kit';
import { AppConfig } from '../infrastructure/config/app-config';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpToolGateway } from '../infrastructure/mcp/mcp-tool-gateway';
import { createToolsMcpServer, inProcessChannel } from '../interfaces/mcp/tools-mcp-server';
import { ModelModule } from './model.module';
import { PolicyModule } from './policy.module';
import { TodoModule } from './todo.module';
import { TodoToolsModule } from './todo-tools.module';

/**
 * The agent's gateway, linked to a tools server in this process over the SDK's in-memory
 * transport: the same protocol path as any external MCP client, without a socket.
 */
async function connectInProcessToolGateway(executor: ExecuteToolCallUseCase): Promise<McpToolGateway> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createToolsMcpServer(executor, inProcessChannel).connect(serverSide);
  return McpToolGateway.connect(clientSide);
}

class ToolGatewayLifecycle implements OnApplicationShutdown {
  constructor(private readonly gateway: McpToolGateway) {}

  onApplicationShutdown(): Promise<void> {
    return this.gateway.close();
  }
}

/** The agent core, with the todo tools behind MCP. */
@Module({
  imports: [ModelModule, TodoModule, TodoToolsModule, PolicyModule],
  providers: [
    TodoToolKit,
    { provide: Toolbox, useClass: TodoToolbox },
    {
      provide: ToolCallSettings,
      useFactory: (config: AppConfig): ToolCallSettings => ({
        mcpDestructiveTools: config.mcpDestructiveTools,
        consoleUrl: config.publicBaseUrl,
      }),
      inject: [AppConfig],
    },
    ExecuteToolCallUseCase,
    {
      provide: ToolGateway,
      useFactory: (executor: ExecuteToolCallUseCase) => connectInProcessToolGateway(executor),
      inject: [ExecuteToolCallUseCase],
    },
    {
      provide: ToolGatewayLifecycle,
      useFactory: (gateway: McpToolGateway) => new ToolGatewayLifecycle(gateway),
      inject: [ToolGateway],
    },
    AgentLoop,
  ],
  exports: [ModelModule, TodoToolsModule, AgentLoop, ExecuteToolCallUseCase, Toolbox, ToolCallSettings],
})
export class AgentModule {}
