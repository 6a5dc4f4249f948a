import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { assignRequestId } from './shared/request-id';

export const MAX_BODY_BYTES = 64 * 1024;
/** A CSV of leads (POST /api/:userId/campaigns/:campaignId/leads) may be larger than a JSON body. */
export const MAX_CSV_BYTES = 2 * 1024 * 1024;

/**
 * Express-level setup the module graph cannot express. The service and the e2e tests
 * both call this, so tests exercise the same stack that runs in production.
 * The app must be created with `{ bodyParser: false }`.
 */
export function configureHttpApp(app: NestExpressApplication): void {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.use(assignRequestId);
  app.useBodyParser('json', { limit: MAX_BODY_BYTES });
  app.useBodyParser('text', { type: 'text/csv', limit: MAX_CSV_BYTES });

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Bridle')
      .setDescription(
        'Let a language model act for people through tools, on rails. Every error body is ' +
          '`{statusCode, code, message, correlationId}`; correlationId equals the X-Request-Id header.',
      )
      .setVersion('0.1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
