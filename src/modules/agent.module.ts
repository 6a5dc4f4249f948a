import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { AgentLoop } from '../application/agent/agent-loop';
import { ExecuteToolCallUseCase } from '../application/agent/execute-tool-call.use-case';
import { ToolCallSettings } from '../application/agent/tool-call-settings';
import { ToolGateway } from '../application/agent/ports/tool-gateway.port';
import { Toolbox } from '../application/agent/ports/toolbox.port';
import { TodoToolbox } from '../application/todo/tools/todo-toolbox';
import { AppConfig } from '../infrastructure/config/app-config';
import { connectInProcessToolGateway } from '../infrastructure/mcp/in-process-tool-gateway';
import type { McpToolGateway } from '../infrastructure/mcp/mcp-tool-gateway';
import { ModelModule } from './model.module';
import { TodoModule } from './todo.module';

class ToolGatewayLifecycle implements OnApplicationShutdown {
  constructor(private readonly gateway: McpToolGateway) {}

  onApplicationShutdown(): Promise<void> {
    return this.gateway.close();
  }
}

/** The agent core, with the todo tools behind MCP. */
@Module({
  imports: [ModelModule, TodoModule],
  providers: [
    { provide: Toolbox, useClass: TodoToolbox },
    {
      provide: ToolCallSettings,
      useFactory: (config: AppConfig): ToolCallSettings => ({ mcpDestructiveTools: config.mcpDestructiveTools }),
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
  exports: [ModelModule, AgentLoop, ExecuteToolCallUseCase, Toolbox],
})
export class AgentModule {}
