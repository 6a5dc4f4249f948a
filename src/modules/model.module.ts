import { Module } from '@nestjs/common';
import { LanguageModel } from '../application/agent/ports/language-model.port';
import { SchemaValidator } from '../application/agent/ports/schema-validator.port';
import { AgentSettings } from '../application/agent/agent-settings';
import { IdGenerator } from '../application/shared/ports/id-generator.port';
import { Metrics } from '../application/shared/ports/metrics.port';
import { Tracer } from '../application/shared/ports/tracer.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { createLanguageModel } from '../infrastructure/llm/create-language-model';
import { MeteredLanguageModel } from '../infrastructure/llm/metered-language-model';
import { TracedLanguageModel } from '../infrastructure/llm/traced-language-model';
import { RandomIdGenerator } from '../infrastructure/random-id-generator';
import { AjvSchemaValidator } from '../infrastructure/validation/ajv-schema-validator';
import { AuditLogModule } from './audit-log.module';

/**
 * What both products decide with: the language model, its settings, the schema validator
 * that checks what it proposes (tool arguments, outreach actions: one per process), the
 * audit log, ids.
 */
@Module({
  imports: [AuditLogModule],
  providers: [
    {
      provide: LanguageModel,
      useFactory: async (config: AppConfig, metrics: Metrics, tracer: Tracer) => {
        const model = new MeteredLanguageModel(await createLanguageModel(config), metrics, config.prices);
        return tracer.enabled ? new TracedLanguageModel(model, tracer) : model;
      },
      inject: [AppConfig, Metrics, Tracer],
    },
    { provide: IdGenerator, useClass: RandomIdGenerator },
    { provide: SchemaValidator, useClass: AjvSchemaValidator },
    {
      provide: AgentSettings,
      useFactory: (config: AppConfig): AgentSettings => ({
        limits: config.agentLimits,
        sampling: config.llmSampling,
        prices: config.prices,
        turnsPerMinute: config.chatRateLimitPerMinute,
        supportContact: config.supportContact,
      }),
      inject: [AppConfig],
    },
  ],
  exports: [LanguageModel, AuditLogModule, IdGenerator, AgentSettings, SchemaValidator],
})
export class ModelModule {}
