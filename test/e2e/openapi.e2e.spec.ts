import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Document, type ISpectralDiagnostic, type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import type { Express } from 'express';
import request from 'supertest';
import { holdsScope, type Scope, SCOPES } from '../../src/domain/identity/scopes';
import { ERROR_CODES } from '../../src/interfaces/http/shared/error-codes';
import { openApiDocument } from '../../src/openapi';
import { signUpAndIn } from '../support/accounts';
import { useTestApp } from '../support/test-app';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  'x-required-scopes'?: Scope[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }>;
}
type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes?: Record<string, { type: string; scheme?: string; flows?: { authorizationCode?: { scopes: Record<string, string> } } }>;
    schemas: Record<string, { enum?: string[] }>;
  };
};

/** Swagger's own pages, the web console's page (`/`, when web/dist is built), and the
 * catch-all paths Nest mounts for middleware. */
const UNDOCUMENTED = /^\/docs|^\/$|splat/;
/** The session protocol's GET and DELETE: left out of the document, POST /mcp's description names them. */
const LEFT_OUT = ['GET /mcp', 'DELETE /mcp'];

/** operationIds are camelCase, a verb then a noun (`createTask`, `listCampaigns`); register, login and unsubscribe stand alone. */
const OPERATION_ID =
  /^(register|login|unsubscribe|(list|get|create|update|delete|add|change|complete|start|pause|import|run|send|stream|export|verify|approve|reject|revoke|deny|refresh)[A-Z][A-Za-z]*)$/;

const ERROR_BODY = { $ref: '#/components/schemas/ErrorResponseDto' };
/** POST /mcp's transport refuses some requests (and an unknown session) with JSON-RPC errors rather than the error body. */
const JSON_RPC_ERRORS: Record<string, unknown> = {
  'POST /mcp 400': { oneOf: [ERROR_BODY, { $ref: '#/components/schemas/JsonRpcErrorResponseDto' }] },
  'POST /mcp 406': { $ref: '#/components/schemas/JsonRpcErrorResponseDto' },
  'POST /mcp 415': { $ref: '#/components/schemas/JsonRpcErrorResponseDto' },
  'POST /mcp 404': { $ref: '#/components/schemas/JsonRpcErrorResponseDto' },
  // A route that takes a policy refuses a malformed one with the error body and every problem (PolicyRefusedResponseDto).
  'POST /admin/policy/dry-run 400': { $ref: '#/components/schemas/PolicyRefusedResponseDto' },
  'PUT /admin/policy 400': { $ref: '#/components/schemas/PolicyRefusedResponseDto' },
};

const METRICS_TOKEN = 'metrics-token-for-the-openapi-suite';

describe('OpenAPI document', () => {
  // With a metrics token, so that GET /metrics gives the 401 it documents.
  const sut = useTestApp({ env: { METRICS_TOKEN } });
  let doc: OpenApiDocument;

  beforeAll(async () => {
    doc = (await request(sut.http).get('/docs-json').expect(200)).body as OpenApiDocument;
  });

  it('is a valid OpenAPI 3 document with a scheme for each kind of credential, OAuth with every scope', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    const schemes = doc.components.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual(['metricsToken', 'oauth2', 'personalAccessToken', 'session']);
    expect(Object.keys(schemes.oauth2.flows?.authorizationCode?.scopes ?? {})).toEqual(SCOPES);
    // OAuth access tokens are good on their resource only.
    const takingOAuth = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.security?.some((alternative) => 'oauth2' in alternative))
        .map(([method, operation]) => `${method.toUpperCase()} ${path} ${JSON.stringify(operation.security)}`),
    );
    expect(takingOAuth).toEqual(['POST /mcp [{"session":[]},{"personalAccessToken":[]},{"oauth2":["tasks:read"]}]']);
  });

  it('types the error code as the enum of every code the API gives, and names only those in its responses', () => {
    expect(doc.components.schemas.ErrorCode.enum).toEqual(ERROR_CODES);
    const named = Object.values(doc.paths)
      .flatMap((operations) => Object.values(operations).flatMap((operation) => Object.values(operation.responses)))
      .flatMap((response) => response.description?.match(/\b[A-Z]+\.[A-Z_]+\b/g) ?? []);
    expect(named.length).toBeGreaterThan(50);
    expect([...new Set(named)].filter((code) => !(ERROR_CODES as readonly string[]).includes(code))).toEqual([]);
  });

  it("passes Spectral's OAS ruleset with no error and no warning", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({
      // The package's declared type for its own ruleset does not match spectral-core's.
      extends: [[oas as RulesetDefinition, 'recommended']],
      // One rule beyond the recommended set: generated clients document each parameter with it.
      rules: { 'oas3-parameter-description': 'warn' },
    });
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 2), Json));
    // One line per finding, so that a failure reads as the list of what to fix.
    expect(results.map(describeFinding)).toEqual([]);
  });

  // @redocly/openapi-core is an ES module only, which Jest's CommonJS runtime cannot load: it runs in a child process.
  it("passes Redocly's recommended rules with no error", () => {
    const lint = `
      import { createConfig, lintFromString } from '@redocly/openapi-core';
      const source = await new Response(process.stdin).text();
      const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
      const errors = problems.filter((problem) => problem.severity === 'error');
      process.stdout.write(JSON.stringify(errors.map((problem) => problem.ruleId + ': ' + problem.message + ' (' + (problem.location[0]?.pointer ?? '') + ')')));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', lint], { input: JSON.stringify(doc), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('is the document `npm run api:types` generates the console types from, made without a server or a database', async () => {
    expect(await openApiDocument()).toEqual(doc);
  });

  it('names every operation with a camelCase verb and noun', () => {
    const ids = Object.values(doc.paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId));
    expect(ids.filter((id) => !OPERATION_ID.test(id ?? ''))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists every route the server actually mounts', () => {
    const express: Express = sut.app.getHttpAdapter().getInstance();
    const mounted = mountedRoutes(express);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(mounted.length).toBeGreaterThanOrEqual(10);
    expect(mounted).toEqual(expect.arrayContaining(LEFT_OUT));
    expect(documented.sort()).toEqual(mounted.filter((route) => !LEFT_OUT.includes(route)).sort());
  });

  it('gives every operation a success schema and the error schema, and protects /api, /auth/me, /auth/password and /auth/refresh', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        expect({ where, success: success.length }).toEqual({ where, success: 1 });
        for (const [status, response] of success) {
          if (status !== '204')
            expect({ where, schema: Object.values(response.content ?? {})[0]?.schema }).toEqual({ where, schema: expect.anything() });
        }
        const errors = Object.entries(operation.responses).filter(([s]) => /^[45]/.test(s));
        expect({ where, errors: errors.length > 0 }).toEqual({ where, errors: true });
        for (const [status, error] of [...errors, ['default', operation.responses.default] as const]) {
          const schema = JSON_RPC_ERRORS[`${where} ${status}`] ?? ERROR_BODY;
          expect({ where, status, schema: error?.content?.['application/json']?.schema }).toEqual({ where, status, schema });
        }
        // /metrics: when the server has a METRICS_TOKEN.
        const protectedRoute =
          path.startsWith('/api/') ||
          path.startsWith('/admin/') ||
          path.startsWith('/oauth/') ||
          path === '/auth/me' ||
          path === '/auth/password' ||
          path === '/auth/refresh' ||
          path === '/metrics' ||
          (path === '/mcp' && method === 'post');
        expect({ where, secured: Boolean(operation.security?.length) }).toEqual({ where, secured: protectedRoute });
        // An empty list where no credential is needed: every operation states its security (Redocly's security-defined).
        expect({ where, security: Array.isArray(operation.security) }).toEqual({ where, security: true });
        for (const [status, response] of Object.entries(operation.responses)) {
          expect({ where, status, described: Boolean(response.description?.trim()) }).toEqual({ where, status, described: true });
        }
        if (operation.responses['429']) {
          expect({ where, headers: Object.keys(operation.responses['429'].headers ?? {}) }).toEqual({ where, headers: ['Retry-After'] });
        }
        // Commands named by their path (complete, start, pause, run a cycle, deny, refresh, a new secret) take no body.
        if (['post', 'patch'].includes(method) && !/\/(complete|start|pause|cycles|deny|refresh|secret)$/.test(path)) {
          expect({ where, body: operation.requestBody }).toEqual({ where, body: expect.anything() });
        }
      }
    }
  });

  it('answers the 401 and 403 each protected operation documents', async () => {
    const user = await signUpAndIn(sut.http);
    const answers: string[] = [];
    const expected: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.security?.length) continue;
        const where = `${method.toUpperCase()} ${path}`;
        // Another user's id, and any value for the rest: the guards answer before the pipes read them.
        const url = path.replace('{userId}', randomUUID()).replace(/\{\w+\}/g, '1');
        const call = () => request(sut.http)[method as 'get'](url).set('accept', 'application/json, text/event-stream');
        const anonymous = await call();
        answers.push(`${where}: ${anonymous.status} documented ${String('401' in operation.responses)}`);
        expected.push(`${where}: 401 documented true`);
        // Another user's data, or an admin route for a user who is not an admin.
        if (path.startsWith('/api/') || path.startsWith('/admin/')) {
          const forbidden = await call().set(user.auth);
          answers.push(`${where} as someone else: ${forbidden.status} documented ${String('403' in operation.responses)}`);
          expected.push(`${where} as someone else: 403 documented true`);
        }
      }
    }
    expect(answers).toEqual(expected);
  });

  it('takes and refuses personal access tokens as each operation’s security and x-required-scopes say', async () => {
    const user = await signUpAndIn(sut.http);
    // One token per scope, each holding that scope only.
    const tokens = new Map<Scope, { Authorization: string }>();
    for (const scope of SCOPES) {
      const made = await request(sut.http)
        .post(`/api/${user.userId}/tokens`)
        .set(user.auth)
        .send({ name: scope, scopes: [scope] })
        .expect(201);
      tokens.set(scope, { Authorization: `Bearer ${(made.body as { token: string }).token}` });
    }
    const answers: string[] = [];
    const expected: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.security?.some((alternative) => 'session' in alternative)) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const required = operation['x-required-scopes'] ?? [];
        const takesTokens = operation.security.some((alternative) => 'personalAccessToken' in alternative);
        const url = path.replace('{userId}', user.userId).replace(/\{\w+\}/g, '1');
        const call = (auth: { Authorization: string }) =>
          request(sut.http)[method as 'get'](url).set('accept', 'application/json, text/event-stream').set(auth);
        const holding = (scopes: readonly Scope[]) => SCOPES.filter((held) => scopes.every((scope) => holdsScope([held], scope)));

        // Refused: any token where only a session may, else a token without the scope the operation names.
        const refused = takesTokens ? SCOPES.find((held) => !holding(required).includes(held)) : 'chat';
        if (refused) {
          const code = takesTokens ? 'AUTH.INSUFFICIENT_SCOPE' : 'AUTH.SESSION_REQUIRED';
          const answer = await call(tokens.get(refused)!);
          const documented = operation.responses['403']?.description?.includes(code) ?? false;
          answers.push(
            `${where} with ${refused}: ${answer.status} ${String((answer.body as { code?: unknown }).code)} documented ${String(documented)}`,
          );
          expected.push(`${where} with ${refused}: 403 ${code} documented true`);
        }
        // Taken: a token holding just the scopes it names gets past the credential check (an event stream would stay open).
        const stream = Object.values(operation.responses).some((response) => response.content?.['text/event-stream']);
        if (takesTokens && !stream) {
          const held = holding(required)[0];
          const answer = await call(tokens.get(held)!);
          const code = (answer.body as { code?: unknown }).code;
          const refusedByCredential = answer.status === 401 || code === 'AUTH.INSUFFICIENT_SCOPE' || code === 'AUTH.SESSION_REQUIRED';
          answers.push(`${where} with ${held}: refused for the credential ${String(refusedByCredential)}`);
          expected.push(`${where} with ${held}: refused for the credential false`);
        }
      }
    }
    expect(answers.length).toBeGreaterThan(60);
    expect(answers).toEqual(expected);
  });

  it('serves Swagger UI at /docs from bundled assets', async () => {
    const page = await request(sut.http).get('/docs').redirects(1).expect(200);
    expect(page.text).toContain('swagger-ui');
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
  });
});

const SEVERITIES = ['error', 'warning', 'info', 'hint'];

function describeFinding(result: ISpectralDiagnostic): string {
  return `${SEVERITIES[result.severity]} ${result.code} at ${result.path.join('.')}: ${result.message}`;
}

/** `METHOD /path` for each route registered on the Express app. */
function mountedRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router.stack;
  return stack
    .filter((layer) => layer.route && !UNDOCUMENTED.test(layer.route.path))
    .flatMap((layer) =>
      Object.keys(layer.route!.methods)
        .filter((method) => method !== '_all')
        .map((method) => `${method.toUpperCase()} ${layer.route!.path}`),
    );
}
