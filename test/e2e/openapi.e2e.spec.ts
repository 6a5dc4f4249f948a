import { randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Document, type ISpectralDiagnostic, type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import type { Express } from 'express';
import request from 'supertest';
import { openApiDocument } from '../../src/openapi';
import { signUpAndIn } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

/** Swagger's own pages, the web console's page (`/`, when web/dist is built), and the
 * catch-all paths Nest mounts for middleware. */
const UNDOCUMENTED = /^\/docs|^\/$|splat/;
/** The session protocol's GET and DELETE: left out of the document, POST /mcp's description names them. */
const LEFT_OUT = ['GET /mcp', 'DELETE /mcp'];

/** operationIds are camelCase, a verb then a noun (`createTask`, `listCampaigns`); register, login and unsubscribe stand alone. */
const OPERATION_ID =
  /^(register|login|unsubscribe|(list|get|create|update|delete|add|change|complete|start|pause|import|run|send|stream|export|verify|approve|reject|revoke|deny)[A-Z][A-Za-z]*)$/;

const ERROR_BODY = { $ref: '#/components/schemas/ErrorResponseDto' };
/** POST /mcp's transport refuses some requests (and an unknown session) with JSON-RPC errors rather than the error body. */
const JSON_RPC_ERRORS: Record<string, unknown> = {
  'POST /mcp 400': { oneOf: [ERROR_BODY, { $ref: '#/components/schemas/JsonRpcErrorResponseDto' }] },
  'POST /mcp 406': { $ref: '#/components/schemas/JsonRpcErrorResponseDto' },
  'POST /mcp 415': { $ref: '#/components/schemas/JsonRpcErrorResponseDto' },
  'POST /mcp 404': { $ref: '#/components/schemas/JsonRpcErrorResponseDto' },
};

const METRICS_TOKEN = 'metrics-token-for-the-openapi-suite';

describe('OpenAPI document', () => {
  let db: TestDatabase;
  let sut: TestApp;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    db = await createTestDatabase();
    // With a metrics token, so that GET /metrics gives the 401 it documents.
    sut = await startTestApp(db, { METRICS_TOKEN });
    doc = (await request(sut.http).get('/docs-json').expect(200)).body as OpenApiDocument;
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  it('is a valid OpenAPI 3 document with the bearer scheme', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    expect(Object.values(doc.components.securitySchemes ?? {})).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
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

  it('gives every operation a success schema and the error schema, and protects /api, /auth/me and /auth/password', () => {
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
          path === '/metrics' ||
          (path === '/mcp' && method === 'post');
        expect({ where, secured: Boolean(operation.security?.length) }).toEqual({ where, secured: protectedRoute });
        // Commands named by their path (complete, start, pause, run a cycle, deny) take no body.
        if (['post', 'patch'].includes(method) && !/\/(complete|start|pause|cycles|deny)$/.test(path)) {
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
