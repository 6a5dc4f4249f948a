import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { json, type RequestHandler, text } from 'express';
import helmet from 'helmet';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { Metrics } from '../../application/shared/ports/metrics.port';
import { measureHttpRequests } from './metrics/http-request-metrics';
import { buildOpenApiDocument } from './openapi';
import { assignRequestId } from './shared/request-id';
import { POLICY_FILE_PATH, POLICY_YAML_TYPES } from './admin/admin-policy.dto';

export const MAX_BODY_BYTES = 64 * 1024;
/** A CSV of leads (POST /api/:userId/campaigns/:campaignId/leads) may be larger than a JSON body. */
export const MAX_CSV_BYTES = 2 * 1024 * 1024;

/**
 * Express-level setup the module graph cannot express. The service and the e2e tests
 * both call this, so tests exercise the same stack that runs in production.
 * The app must be created with `{ bodyParser: false }`.
 */
export function configureHttpApp(app: NestExpressApplication, options: { trustProxy: boolean | number | string }): void {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // Which proxies may name the client (X-Forwarded-For): the address every per-address limit counts.
  app.set('trust proxy', options.trustProxy);
  app.use(measureHttpRequests(app.get(Metrics)));
  app.use(assignRequestId);
  app.use(securityHeaders());
  // express's parsers directly: Nest's useBodyParser reserves `verify` for itself.
  app.use(json({ limit: MAX_BODY_BYTES, verify: refuseInvalidUtf8 }));
  app.use(text({ type: 'text/csv', limit: MAX_CSV_BYTES, verify: refuseInvalidUtf8 }));
  // A policy file (PUT /admin/policy as YAML), as text for its route to read: bounded as a JSON body is.
  app.use(text({ type: isPolicyFile, limit: MAX_BODY_BYTES, verify: refuseInvalidUtf8 }));

  // Built on the first request for it (and kept), not at every start: about 0.15–0.6 s.
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
}

/**
 * The console loads only its own scripts, styles and API (no inline code, no CDN, no frames),
 * so its policy allows exactly that. Swagger UI at /docs writes inline styles: it alone may.
 */
const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  baseUri: ["'none'"],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'"],
};

/** helmet's headers (HSTS, nosniff, frame and referrer policies, …) with the policy above. */
function securityHeaders(): RequestHandler {
  const strict = helmet({ contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY } });
  const docs = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { ...CONTENT_SECURITY_POLICY, styleSrc: ["'self'", "'unsafe-inline'"] } },
  });
  return (req, res, next) => (req.path === '/docs' || req.path.startsWith('/docs/') ? docs : strict)(req, res, next);
}

/**
 * Bodies are UTF-8 or refused: the decoder would otherwise turn bad bytes into U+FFFD and
 * store text the client never sent. `type` is how the error filter recognises it.
 */
function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('The request body is not valid UTF-8'), { status: 400, type: 'encoding.invalid' });
}

/** A YAML body sent to the one route that reads policy files; anywhere else YAML stays unparsed, as any other unknown type. */
function isPolicyFile(req: IncomingMessage): boolean {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return POLICY_YAML_TYPES.includes(mediaType) && (req.url ?? '').split('?')[0] === POLICY_FILE_PATH;
}
