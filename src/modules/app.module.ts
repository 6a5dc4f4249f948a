import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../infrastructure/config/app-config';
import { HealthController } from '../interfaces/http/health/health.controller';
import { HttpErrorFilter } from '../interfaces/http/shared/http-error.filter';
import { createValidationPipe } from '../interfaces/http/shared/validation';
import { ChatModule } from './chat.module';
import { CoreModule } from './core.module';
import { IdentityModule } from './identity.module';
import { McpModule } from './mcp.module';
import { PersistenceModule } from './persistence.module';
import { TodoModule } from './todo.module';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(config),
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            genReqId: (req: IncomingMessage & { id?: unknown }) =>
              typeof req.id === 'string' ? req.id : randomUUID(),
            // Only what helps at 3 a.m.: never headers (tokens, cookies) and never bodies.
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
            },
            autoLogging: { ignore: (req) => req.url === '/health' },
          },
        }),
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
        ChatModule,
        McpModule,
      ],
      controllers: [HealthController],
      providers: [
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
