import { Module } from '@nestjs/common';
import { AppConfig } from '../infrastructure/config/app-config';
import { McpController, McpEndpointSettings, McpHostGuard } from '../interfaces/mcp/mcp.controller';
import { McpSessions, McpSessionSettings } from '../interfaces/mcp/mcp-sessions';
import { TodoModule } from './todo.module';
import { AgentModule } from './agent.module';
import { IdentityModule } from './identity.module';

/** `/mcp`: the task tools, resources and prompts for any MCP client, statelessly or in sessions. */
@Module({
  imports: [AgentModule, IdentityModule, TodoModule],
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
    McpSessions,
  ],
})
export class McpModule {}
