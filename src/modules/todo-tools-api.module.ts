import { Module } from '@nestjs/common';
import { ToolsController } from '../interfaces/http/todo/tools.controller';
import { AgentModule } from './agent.module';
import { IdentityModule } from './identity.module';

/** `POST /api/:userId/tools/:name`: the todo tools over the REST API (source `api`), through the one tool-call path. */
@Module({
  imports: [AgentModule, IdentityModule],
  controllers: [ToolsController],
})
export class TodoToolsApiModule {}
