import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../infrastructure/config/app-config';
import { boundedLogFields, loggableUrl, serializeError } from '../infrastructure/logging/log-serializers';

/** pino JSON logs, for the HTTP server and for worker processes alike. */
export function loggingModule(config: AppConfig): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: {
      level: config.logLevel,
      genReqId: (req: IncomingMessage & { id?: unknown }) => (typeof req.id === 'string' ? req.id : randomUUID()),
      // Only what helps at 3 a.m.: never headers (tokens, cookies), bodies, query-string
      // credentials or an error's database parameters. `err` covers every logger.error({err}).
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: loggableUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: serializeError,
      },
      // Every field's text bounded: a client's value (a tool name, a path) makes no line long.
      formatters: { log: boundedLogFields },
      autoLogging: { ignore: (req) => req.url === '/health' },
    },
  });
}
