import SwaggerParser from '@apidevtools/swagger-parser';
import type { Express } from 'express';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

interface Operation {
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

describe('OpenAPI document', () => {
  let db: TestDatabase;
  let sut: TestApp;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db);
    doc = (await request(sut.http).get('/docs-json').expect(200)).body as OpenApiDocument;
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  it('is a valid OpenAPI 3 document with the bearer scheme', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    expect(Object.values(doc.components.securitySchemes ?? {})).toContainEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
  });

  it('lists every route the server actually mounts', () => {
    const express: Express = sut.app.getHttpAdapter().getInstance();
    const mounted = mountedRoutes(express);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(mounted.length).toBeGreaterThanOrEqual(10);
    expect(documented.sort()).toEqual(mounted.sort());
  });

  it('gives every operation a success schema and the error schema, and protects /api and /auth/me', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        // Only the methods /mcp refuses (405) have no success response.
        const expected = operation.responses['405'] ? 0 : 1;
        expect({ where, success: success.length }).toEqual({ where, success: expected });
        for (const [status, response] of success) {
          if (status !== '204') expect({ where, schema: Object.values(response.content ?? {})[0]?.schema }).toEqual({ where, schema: expect.anything() });
        }
        const errors = Object.entries(operation.responses).filter(([s]) => /^[45]/.test(s));
        expect({ where, errors: errors.length > 0 }).toEqual({ where, errors: true });
        for (const [, error] of errors) {
          expect(error.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ErrorResponseDto' });
        }
        // /metrics: when the server has a METRICS_TOKEN.
        const protectedRoute =
          path.startsWith('/api/') ||
          path.startsWith('/admin/') ||
          path === '/auth/me' ||
          path === '/metrics' ||
          (path === '/mcp' && method === 'post');
        expect({ where, secured: Boolean(operation.security?.length) }).toEqual({ where, secured: protectedRoute });
        // Commands named by their path (complete, start, pause, run a cycle) take no body.
        if (['post', 'patch'].includes(method) && !/\/(complete|start|pause|cycles)$/.test(path)) {
          expect({ where, body: operation.requestBody }).toEqual({ where, body: expect.anything() });
        }
      }
    }
  });

  it('serves Swagger UI at /docs from bundled assets', async () => {
    const page = await request(sut.http).get('/docs').redirects(1).expect(200);
    expect(page.text).toContain('swagger-ui');
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
  });
});

/** `METHOD /path` for each route registered on the Express app. */
function mountedRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } })
    .router.stack;
  return stack
    .filter((layer) => layer.route && !UNDOCUMENTED.test(layer.route.path))
    .flatMap((layer) =>
      Object.keys(layer.route!.methods)
        .filter((method) => method !== '_all')
        .map((method) => `${method.toUpperCase()} ${layer.route!.path}`),
    );
}
