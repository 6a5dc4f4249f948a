import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../infrastructure/config/app-config';
import { HealthController } from '../interfaces/http/health/health.controller';
import { MetricsAccess, MetricsController } from '../interfaces/http/metrics/metrics.controller';
import { ProtectedResource } from '../interfaces/http/guards/bearer-challenge';
import { HttpErrorFilter } from '../interfaces/http/shared/http-error.filter';
import { InputBoundaryGuard } from '../interfaces/http/shared/input-boundary.guard';
import { perUserPerMinute, routeSkips, signInPerAccount } from '../interfaces/http/shared/rate-limit';
import { DatabaseThrottlerStorage } from '../infrastructure/persistence/repositories/database-throttler-storage';
import { createValidationPipe } from '../interfaces/http/shared/validation';
import { AdminModule } from './admin.module';
import { CampaignsModule } from './campaigns.module';
import { ChatModule } from './chat.module';
import { CoreModule } from './core.module';
import { IdentityModule } from './identity.module';
import { loggingModule } from './logging';
import { McpModule } from './mcp.module';
import { NotificationEmailModule } from './notification-email.module';
import { NotificationsModule } from './notifications.module';
import { OAuthModule } from './oauth.module';
import { PersistenceModule } from './persistence.module';
import { PrivacyModule } from './privacy.module';
import { ReviewModule } from './review.module';
import { TodoModule } from './todo.module';
import { TodoToolsApiModule } from './todo-tools-api.module';
import { UnsubscribeModule } from './unsubscribe.module';
import { WebModule } from './web.module';
import { WebhooksModule } from './webhooks.module';

/** The per-account sign-in window; a block lasts as long, doubling while guessing goes on. */
const SIGN_IN_WINDOW_MS = 15 * 60_000;

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(config),
        loggingModule(config),
        // Each route names the limits it takes (RateLimit()); the counters live in the database,
        // so every server process counts the same requests (one upsert per limited request).
        // The chat's limit is counted by the turn's own opening statement (ConversationStore).
        ThrottlerModule.forRootAsync({
          imports: [PersistenceModule],
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => ({
            storage: new DatabaseThrottlerStorage(dataSource, new Set(['sign-in'])),
            throttlers: [
              { name: 'default', ttl: 60_000, limit: config.authRateLimitPerMinute, skipIf: routeSkips('default') },
              signInPerAccount(SIGN_IN_WINDOW_MS, config.signInAttemptsPerAccount),
              perUserPerMinute('mcp', config.mcpRateLimitPerMinute),
              perUserPerMinute('api', config.apiRateLimitPerMinute),
            ],
          }),
        }),
        PersistenceModule,
        IdentityModule,
        TodoModule,
        TodoToolsApiModule,
        CampaignsModule,
        ReviewModule,
        UnsubscribeModule,
        ChatModule,
        McpModule,
        OAuthModule,
        AdminModule,
        PrivacyModule,
        NotificationsModule,
        NotificationEmailModule.register(config),
        WebhooksModule,
        WebModule.register(),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        {
          provide: APP_FILTER,
          inject: [PinoLogger, ProtectedResource],
          useFactory: (logger: PinoLogger, resource: ProtectedResource) => new HttpErrorFilter(logger, resource, config.supportContact),
        },
        { provide: MetricsAccess, useValue: { token: config.metricsToken } satisfies MetricsAccess },
        // Global, so it runs before every route's own guards and pipes.
        { provide: APP_GUARD, useClass: InputBoundaryGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
