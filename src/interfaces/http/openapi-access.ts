import type { INestApplication, Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import {
  DECORATORS,
  getSchemaPath,
  type HeaderObject,
  type OpenAPIObject,
  type OperationObject,
  type ResponseObject,
  type SecurityRequirementObject,
  type SecuritySchemeObject,
} from '@nestjs/swagger';
import { type Scope, SCOPE_DESCRIPTIONS } from '../../domain/identity/scopes';
import { McpHostGuard } from '../mcp/mcp.controller';
import { AdminGuard } from './admin/admin.guard';
import { BearerAuthGuard, OwnUserGuard } from './guards/bearer-auth.guard';
import { ACCEPTS_OAUTH_TOKENS, REQUIRED_SCOPE, type ScopeRequirement } from './guards/required-scope';
import { MetricsTokenGuard } from './metrics/metrics.controller';
import { ErrorResponseDto } from './shared/error-response.dto';
import { RATE_LIMIT_DESCRIPTIONS, RateLimitGuard, rateLimitsOf } from './shared/rate-limit';

/** The credentials the API takes, all as `Authorization: Bearer`, told apart by what the token is (docs/security.md). */
export const SECURITY_SCHEMES: Readonly<Record<'session' | 'personalAccessToken' | 'oauth2' | 'metricsToken', SecuritySchemeObject>> = {
  session: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "The console's session: the accessToken of login (renewed by refreshSession, replaced by changePassword). " +
      'It holds every scope, and is the only credential of the operations that take no other.',
  },
  personalAccessToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A personal access token (`bridle_pat_…`), made in a session by createAccessToken, with the scopes chosen then. ' +
      'An operation that takes one names the scope it needs in `x-required-scopes` (a read scope for GET, a write scope ' +
      'otherwise; `tasks:write` implies `tasks:read`); without it the answer is 403 AUTH.INSUFFICIENT_SCOPE.',
  },
  oauth2: {
    type: 'oauth2',
    description:
      'OAuth 2.1 access tokens (`bridle_oat_…`) that MCP clients get with PKCE S256, after registering themselves at /register. ' +
      'Issued for `<PUBLIC_BASE_URL>/mcp` only (RFC 8707) and refused by every other operation.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/authorize',
        tokenUrl: '/token',
        refreshUrl: '/token',
        scopes: { ...SCOPE_DESCRIPTIONS },
      },
    },
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The METRICS_TOKEN of the server. A server without one lets anyone scrape.',
  },
};

/** What a guard or limit adds to an operation: the credentials it takes, and why it refuses, by status. */
interface Access {
  /** The alternatives, any one of which the operation takes; none: no credential needed. */
  security: SecurityRequirementObject[];
  /** What a token other than a session must hold. */
  requiredScopes: Scope[];
  refusals: Partial<Record<RefusalStatus, string[]>>;
}

type RefusalStatus = 401 | 403 | 429;

interface Route {
  readonly handler: object;
  readonly controller: Type;
  readonly method: string;
}

const SAFE_METHODS = new Set(['get', 'head']);

const UNAUTHENTICATED =
  'AUTH.UNAUTHENTICATED: no bearer token, an invalid, expired or revoked one, one whose account no longer exists, ' +
  'or a session issued before the password was last changed';
const CHALLENGED = '; `WWW-Authenticate` says where an MCP client starts the OAuth flow';

/**
 * What each guard a route may use enforces, read from the route's own metadata. A route with
 * a guard that is not here makes the document fail to build: the document must say what
 * every guard refuses.
 */
const GUARDS = new Map<Type, (route: Route) => Access>([
  [BearerAuthGuard, bearerAccess],
  [
    OwnUserGuard,
    () => ({ security: [], requiredScopes: [], refusals: { 403: ["AUTH.FORBIDDEN: the path names another user than the token's"] } }),
  ],
  [
    AdminGuard,
    () => ({ security: [], requiredScopes: [], refusals: { 403: ['AUTH.FORBIDDEN: the token’s account does not hold the admin role'] } }),
  ],
  [
    McpHostGuard,
    () => ({
      security: [],
      requiredScopes: [],
      refusals: {
        403: [
          'MCP.HOST_NOT_ALLOWED or MCP.ORIGIN_NOT_ALLOWED: the Host or Origin header is not allowed (MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS)',
        ],
      },
    }),
  ],
  [
    MetricsTokenGuard,
    () => ({
      security: [{ metricsToken: [] }],
      requiredScopes: [],
      refusals: { 401: ['AUTH.UNAUTHENTICATED: the server has a METRICS_TOKEN and the request did not present it'] },
    }),
  ],
  // RateLimit's: the limits it counts are read below.
  [RateLimitGuard, () => ({ security: [], requiredScopes: [], refusals: {} })],
]);

/** BearerAuthGuard: a session always; a personal access token where the route names a scope; an OAuth token on the protected resource. */
function bearerAccess({ handler, controller, method }: Route): Access {
  const requirement = metadata<ScopeRequirement>(REQUIRED_SCOPE, handler, controller);
  const acceptsOAuth = metadata<boolean>(ACCEPTS_OAUTH_TOKENS, handler, controller) ?? false;
  const security: SecurityRequirementObject[] = [{ session: [] }];
  const refusals: Access['refusals'] = {
    401: [`${UNAUTHENTICATED}${acceptsOAuth ? '' : ', or an OAuth access token (good on /mcp only)'}${CHALLENGED}`],
  };
  if (!requirement) {
    refusals[403] = ['AUTH.SESSION_REQUIRED: a personal access token; only a signed-in session may do this'];
    return { security, requiredScopes: [], refusals };
  }
  security.push({ personalAccessToken: [] });
  const scopes = requirement === 'any' ? [] : [SAFE_METHODS.has(method) ? requirement.read : requirement.write];
  if (acceptsOAuth) security.push({ oauth2: scopes });
  if (scopes.length > 0) {
    const tokens = acceptsOAuth ? 'a personal access token or OAuth token' : 'a personal access token';
    refusals[403] = [`AUTH.INSUFFICIENT_SCOPE: ${tokens} without ${scopes.join(', ')}; \`WWW-Authenticate\` names the scope`];
  }
  return { security, requiredScopes: scopes, refusals };
}

/**
 * Writes into `document` what each operation's guards and limits enforce: its `security`
 * (an empty list where it takes no credential), `x-required-scopes`, and its 401, 403 and
 * 429 responses. A reason the route's own @ApiErrors gives for one of those statuses (a
 * refusal of its handler's) is kept after the guards'. Every 429 documents Retry-After,
 * which the error filter always sends.
 */
export function documentAccess(app: INestApplication, document: OpenAPIObject): void {
  const routes = routesByOperationId(app);
  for (const path of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation: OperationObject | undefined = path[method];
      if (!operation) continue;
      const found = routes.get(operation.operationId ?? '');
      if (!found) throw new Error(`No route declares the operationId ${String(operation.operationId)} in its @ApiOperation`);
      const access = accessOf({ ...found, method });
      operation.security = access.security;
      if (access.requiredScopes.length > 0) Object.assign(operation, { 'x-required-scopes': access.requiredScopes });
      for (const [status, reasons] of Object.entries(access.refusals)) {
        const declared = operation.responses[status] as ResponseObject | undefined;
        const all = [...reasons, ...(declared?.description ? [declared.description] : [])];
        operation.responses[status] = {
          description: all.length === 1 ? all[0] : all.map((reason) => `- ${reason}`).join('\n'),
          ...(status === '401' &&
            operation.security.some((alternative) => 'session' in alternative) && { headers: { 'WWW-Authenticate': CHALLENGE } }),
          content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) } } },
        };
      }
      const tooMany = operation.responses['429'] as ResponseObject | undefined;
      if (tooMany) tooMany.headers = { ...tooMany.headers, 'Retry-After': RETRY_AFTER };
    }
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const CHALLENGE: HeaderObject = {
  description:
    '`Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"`, with `error="invalid_token"` when a token was sent',
  schema: { type: 'string' },
};

const RETRY_AFTER: HeaderObject = {
  description: 'Whole seconds to wait before retrying. A named limit also sends `Retry-After-<limit>` (sign-in, mcp, api, chat).',
  schema: { type: 'integer', minimum: 1 },
};

function accessOf(route: Route): Access {
  const guards = [
    ...((Reflect.getMetadata(GUARDS_METADATA, route.controller) as unknown[] | undefined) ?? []),
    ...((Reflect.getMetadata(GUARDS_METADATA, route.handler) as unknown[] | undefined) ?? []),
  ].map((guard) => (typeof guard === 'function' ? guard : (guard as object).constructor) as Type);
  const access: Access = { security: [], requiredScopes: [], refusals: {} };
  for (const guard of guards) {
    const describe = GUARDS.get(guard);
    if (!describe) {
      throw new Error(`${route.controller.name}.${guardedName(route)} uses ${guard.name}, which openapi-access.ts does not describe`);
    }
    const added = describe(route);
    access.security.push(...added.security);
    access.requiredScopes.push(...added.requiredScopes);
    for (const [status, reasons] of Object.entries(added.refusals) as [`${RefusalStatus}`, string[]][]) {
      (access.refusals[Number(status) as RefusalStatus] ??= []).push(...reasons);
    }
  }
  const limits = rateLimitsOf(route.handler, route.controller);
  if (limits.length > 0) (access.refusals[429] ??= []).push(...limits.map((limit) => RATE_LIMIT_DESCRIPTIONS[limit]));
  return access;
}

function guardedName(route: Route): string {
  return (route.handler as { name?: string }).name ?? 'handler';
}

function metadata<T>(key: string, handler: object, controller: object): T | undefined {
  return (Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller)) as T | undefined;
}

/** Every route handler of the app, by the operationId its @ApiOperation names. */
function routesByOperationId(app: INestApplication): Map<string, Omit<Route, 'method'>> {
  const routes = new Map<string, Omit<Route, 'method'>>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      const controller = metatype as Type;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function') continue;
        const operationId = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as { operationId?: string } | undefined)?.operationId;
        if (operationId) routes.set(operationId, { handler, controller });
      }
    }
  }
  return routes;
}
