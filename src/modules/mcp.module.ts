import { Module } from '@nestjs/common';
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

/** `/mcp`: the task tools, resources and prompts for any MCP client, statelessly or in sessions any replica serves. */
@Module({
  imports: [AgentModule, ChatModule, IdentityModule, TodoModule],
  controllers: [McpController],
  providers: [
    {
      provide: McpEndpointSettings,
      useFactory: (config: AppConfig): McpEndpointSettings => ({
        allowedHosts: config.mcpAllowedHosts,
        allowedOrigins: config.mcpAllowedOrigins,
      }),
      inject: [AppConfig],
    },
    McpHostGuard,
    { provide: McpSessionSettings, useFactory: (config: AppConfig): McpSessionSettings => config.mcpSessions, inject: [AppConfig] },
    { provide: McpSessionStore, useClass: PostgresMcpSessionStore },
    McpSessions,
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
