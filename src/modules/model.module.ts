import { Module } from '@nestjs/common';
import { AuditLog } from '../application/agent/ports/audit-log.port';
import { LanguageModel } from '../application/agent/ports/language-model.port';
import { AgentSettings } from '../application/chat/agent-settings';
import { IdGenerator } from '../application/shared/ports/id-generator.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { createLanguageModel } from '../infrastructure/llm/create-language-model';
import { TypeOrmAuditLog } from '../infrastructure/persistence/repositories/typeorm-audit-log';
import { RandomIdGenerator } from '../infrastructure/random-id-generator';

/** What both products decide with: the language model, its settings, the audit log, ids. */
@Module({
  providers: [
    { provide: LanguageModel, useFactory: createLanguageModel, inject: [AppConfig] },
    { provide: AuditLog, useClass: TypeOrmAuditLog },
    { provide: IdGenerator, useClass: RandomIdGenerator },
    {
      provide: AgentSettings,
      useFactory: (config: AppConfig): AgentSettings => ({ limits: config.agentLimits, pricing: config.llmPricing }),
      inject: [AppConfig],
    },
  ],
  exports: [LanguageModel, AuditLog, IdGenerator, AgentSettings],
})
export class ModelModule {}
