import { Module } from '@nestjs/common';
import { AppConfig } from '../infrastructure/config/app-config';
import { McpController, McpEndpointSettings, McpHostGuard } from '../interfaces/mcp/mcp.controller';
import { AgentModule } from './agent.module';
import { IdentityModule } from './identity.module';

/** `POST /mcp`: the task tools for any MCP client. */
@Module({
  imports: [AgentModule, IdentityModule],
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
  ],
})
export class McpModule {}
