import { hkdfSync } from 'node:crypto';
import { Logger, Module } from '@nestjs/common';
import { ExecuteToolCallUseCase } from '../application/agent/execute-tool-call.use-case';
import { AskInConsoleUseCase } from '../application/chat/ask-in-console.use-case';
import { McpInputRequests } from '../application/mcp/ports/mcp-input-requests.port';
import { Clock } from '../application/shared/ports/clock.port';
import { IdGenerator } from '../application/shared/ports/id-generator.port';
import { Tracer } from '../application/shared/ports/tracer.port';
import { GetTaskUseCase } from '../application/todo/get-task.use-case';
import { ListTasksUseCase } from '../application/todo/list-tasks.use-case';
import { TaskChanges } from '../application/todo/ports/task-changes.port';
import { resolveJwtSecret } from '../infrastructure/config/jwt-secret';
import { PostgresMcpInputRequests } from '../infrastructure/persistence/repositories/postgres-mcp-input-requests';
import { ModernMcpEndpoint } from '../interfaces/mcp/modern/modern-mcp-endpoint';
import { MrtrConfirmations } from '../interfaces/mcp/modern/mrtr-confirmations';
import { AppConfig } from '../infrastructure/config/app-config';
import { McpController, McpEndpointSettings, McpHostGuard } from '../interfaces/mcp/mcp.controller';
import { McpSessions, McpSessionSettings } from '../interfaces/mcp/mcp-sessions';
import { TodoModule } from './todo.module';
import { McpSessionStore } from '../application/mcp/ports/mcp-session-store.port';
import { PostgresMcpSessionStore } from '../infrastructure/persistence/repositories/postgres-mcp-session-store';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { AgentModule } from './agent.module';
import { ChatModule } from './chat.module';
import { IdentityModule } from './identity.module';

/**
 * `/mcp`: the task tools, resources and prompts for any MCP client: 2025 clients statelessly or
 * in sessions any replica serves, 2026-07-28 clients statelessly on any replica.
 */
@Module({
  imports: [AgentModule, ChatModule, IdentityModule, TodoModule],
  controllers: [McpController],
  providers: [
    {
      provide: McpEndpointSettings,
      useFactory: (config: AppConfig): McpEndpointSettings => ({
        allowedHosts: config.mcpAllowedHosts,
        allowedOrigins: config.mcpAllowedOrigins,
        confirmationTimeoutMs: config.mcpConfirmationTimeoutSeconds * 1000,
      }),
      inject: [AppConfig],
    },
    McpHostGuard,
    { provide: McpSessionSettings, useFactory: (config: AppConfig): McpSessionSettings => config.mcpSessions, inject: [AppConfig] },
    { provide: McpSessionStore, useClass: PostgresMcpSessionStore },
    McpSessions,
    { provide: McpInputRequests, useClass: PostgresMcpInputRequests },
    {
      // Its key is derived from the service's secret: every replica sharing JWT_SECRET takes every retry.
      provide: MrtrConfirmations,
      useFactory: async (
        config: AppConfig,
        executor: ExecuteToolCallUseCase,
        questions: McpInputRequests,
        clock: Clock,
        ids: IdGenerator,
      ) => {
        const secret = await resolveJwtSecret(config, (message) => new Logger('Mcp').warn(message));
        const key = new Uint8Array(hkdfSync('sha256', secret, 'bridle', 'bridle mcp:request-state', 32));
        return new MrtrConfirmations(executor, questions, clock, ids, key, config.mcpConfirmationTimeoutSeconds);
      },
      inject: [AppConfig, ExecuteToolCallUseCase, McpInputRequests, Clock, IdGenerator],
    },
    {
      provide: ModernMcpEndpoint,
      useFactory: (
        executor: ExecuteToolCallUseCase,
        confirmations: MrtrConfirmations,
        askInConsole: AskInConsoleUseCase,
        listTasks: ListTasksUseCase,
        getTask: GetTaskUseCase,
        tracer: Tracer,
        changes: TaskChanges,
        config: AppConfig,
      ) =>
        new ModernMcpEndpoint(
          { executor, confirmations, askInConsole, listTasks, getTask, tracer },
          changes,
          config.mcpListenStreamsPerUser,
        ),
      inject: [
        ExecuteToolCallUseCase,
        MrtrConfirmations,
        AskInConsoleUseCase,
        ListTasksUseCase,
        GetTaskUseCase,
        Tracer,
        TaskChanges,
        AppConfig,
      ],
    },
    periodicJobProvider({
      what: 'MCP session sweep',
      context: 'McpSessions',
      uses: McpSessions,
      intervalMs: () => 60_000,
      run: (sessions) => sessions.sweep(),
    }),
    // What a missed message on the fleet bus would have said: an event stream another GET took over.
    periodicJobProvider({
      what: 'MCP event stream check',
      context: 'McpSessions',
      uses: McpSessions,
      intervalMs: () => 5_000,
      run: (sessions) => sessions.checkStreams(),
    }),
  ],
})
export class McpModule {}
