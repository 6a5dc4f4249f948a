import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { AppConfig } from '../infrastructure/config/app-config';
import { HealthController } from '../interfaces/http/health/health.controller';
import { MetricsController } from '../interfaces/http/metrics/metrics.controller';
import { HttpErrorFilter } from '../interfaces/http/shared/http-error.filter';
import { createValidationPipe } from '../interfaces/http/shared/validation';
import { AdminModule } from './admin.module';
import { CampaignsModule } from './campaigns.module';
import { ChatModule } from './chat.module';
import { CoreModule } from './core.module';
import { IdentityModule } from './identity.module';
import { loggingModule } from './logging';
import { McpModule } from './mcp.module';
import { PersistenceModule } from './persistence.module';
import { TodoModule } from './todo.module';
import { WebModule } from './web.module';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(config),
        loggingModule(config),
        // Only routes that use ThrottlerGuard are limited: sign-up and sign-in per client
        // address ('default', so its headers keep their standard names), and chat turns per
        // authenticated user across the plain and streaming routes ('chat').
        ThrottlerModule.forRoot([
          { name: 'default', ttl: 60_000, limit: config.authRateLimitPerMinute },
          {
            name: 'chat',
            ttl: 60_000,
            limit: config.chatRateLimitPerMinute,
            getTracker: (req: { principal?: { userId: string }; ip?: string }) => req.principal?.userId ?? req.ip ?? 'unknown',
            generateKey: (_context, tracker, throttler) => `${throttler}:${tracker}`,
          },
        ]),
        PersistenceModule,
        IdentityModule,
        TodoModule,
        CampaignsModule,
        ChatModule,
        McpModule,
        AdminModule,
        WebModule.register(),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
