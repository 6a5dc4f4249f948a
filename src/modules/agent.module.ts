import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { AgentLoop } from '../application/agent/agent-loop';
import { ExecuteToolCallUseCase } from '../application/agent/execute-tool-call.use-case';
import { AuditLog } from '../application/agent/ports/audit-log.port';
import { LanguageModel } from '../application/agent/ports/language-model.port';
import { ToolGateway } from '../application/agent/ports/tool-gateway.port';
import { Toolbox } from '../application/agent/ports/toolbox.port';
import { AgentSettings } from '../application/chat/agent-settings';
import { IdGenerator } from '../application/shared/ports/id-generator.port';
import { TodoToolbox } from '../application/todo/tools/todo-toolbox';
import { AppConfig } from '../infrastructure/config/app-config';
import { createLanguageModel } from '../infrastructure/llm/create-language-model';
import { connectInProcessToolGateway } from '../infrastructure/mcp/in-process-tool-gateway';
import type { McpToolGateway } from '../infrastructure/mcp/mcp-tool-gateway';
import { TypeOrmAuditLog } from '../infrastructure/persistence/repositories/typeorm-audit-log';
import { RandomIdGenerator } from '../infrastructure/random-id-generator';
import { TodoModule } from './todo.module';

class ToolGatewayLifecycle implements OnApplicationShutdown {
  constructor(private readonly gateway: McpToolGateway) {}

  onApplicationShutdown(): Promise<void> {
    return this.gateway.close();
  }
}

/** The agent core, with the todo tools behind MCP. */
@Module({
  imports: [TodoModule],
  providers: [
    { provide: Toolbox, useClass: TodoToolbox },
    { provide: AuditLog, useClass: TypeOrmAuditLog },
    { provide: IdGenerator, useClass: RandomIdGenerator },
    ExecuteToolCallUseCase,
    { provide: LanguageModel, useFactory: createLanguageModel, inject: [AppConfig] },
    {
      provide: ToolGateway,
      useFactory: (toolbox: Toolbox, executor: ExecuteToolCallUseCase) =>
        connectInProcessToolGateway(toolbox.definitions, executor),
      inject: [Toolbox, ExecuteToolCallUseCase],
    },
    {
      provide: ToolGatewayLifecycle,
      useFactory: (gateway: McpToolGateway) => new ToolGatewayLifecycle(gateway),
      inject: [ToolGateway],
    },
    {
      provide: AgentSettings,
      useFactory: (config: AppConfig): AgentSettings => ({ limits: config.agentLimits, pricing: config.llmPricing }),
      inject: [AppConfig],
    },
    AgentLoop,
  ],
  exports: [AgentLoop, AgentSettings, ExecuteToolCallUseCase, IdGenerator, Toolbox],
})
export class AgentModule {}
