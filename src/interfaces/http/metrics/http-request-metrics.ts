import type { Request, RequestHandler } from 'express';
import type { Metrics } from '../../../application/shared/ports/metrics.port';

/**
 * The route of a request no route answered: a 404, a file of the web console or of Swagger
 * UI, a body the parsers refused. Never its path: any client could make up new ones forever.
 */
export const UNMATCHED_ROUTE = 'unmatched';

/** OpenTelemetry's `http.request.method`: the methods of RFC 9110 and PATCH, any other as `_OTHER`. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/**
 * Times every HTTP request, `/metrics` included, from the first middleware until its response
 * is finished or its connection closed (a client that leaves a stream ends it). Registered
 * before anything else, so that requests refused by a parser or a guard are timed too.
 */
export function measureHttpRequests(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
      metrics.httpRequest(method, routeTemplate(req), res.statusCode, (performance.now() - started) / 1000);
    });
    next();
  };
}

/**
 * The path of the route that answered, as Nest registered it on the app
 * (`/api/:userId/tasks/:number`). `req.route` alone is not enough: it is the last route
 * matched anywhere, which may be a route inside a mounted router (the MCP SDK's `/` under
 * `/token`), or the catch-all (`{/*splat}`) Nest registers its middleware with, left there
 * when no handler matched.
 */
function routeTemplate(req: Request): string {
  // A route's path may also be a RegExp or an array; Nest's are strings.
  const route = req.route as { path: unknown } | undefined;
  const path = route?.path;
  if (typeof path !== 'string' || path.includes('*')) return UNMATCHED_ROUTE;
  return req.app.router.stack.some((layer) => layer.route === route) ? path : UNMATCHED_ROUTE;
}
