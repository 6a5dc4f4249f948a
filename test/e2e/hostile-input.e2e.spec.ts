import request from 'supertest';
import { DataSource } from 'typeorm';
import { chatTurn } from '../factories/conversations';
import { addTasks } from '../factories/tasks';
import type { SignedInUser } from '../support/accounts';
import { signUpAdmin } from '../support/admins';
import { useTestApp } from '../support/test-app';

/**
 * Every route of the OpenAPI document, tried with every class of hostile input an attacker
 * would send. Table-driven from the document itself, so a new route is covered without
 * editing this file. No response may be a 500; each refusal of a hostile value is a 400
 * that names the field; and nothing in the database changes.
 */

interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  nullable?: boolean;
  minimum?: number;
  minLength?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  allOf?: Schema[];
}

interface Operation {
  parameters?: { name: string; in: 'path' | 'query'; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** One hostile request and what it must get. */
interface Case {
  readonly route: string;
  readonly what: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /** 'refused': exactly 400 naming `field`; 'not-accepted': any 4xx; 'no-500': anything below 500. */
  readonly expect: { kind: 'refused'; field: string } | { kind: 'not-accepted' } | { kind: 'no-500' };
}

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';
const NON_CANONICAL_NUMBERS = ['0x1', '0b1', '0o1', '1e0', '%201', '1%20', '+1', '01', '-1', '1.5', '9'.repeat(30), 'NaN', 'Infinity'];
const FORGED_CURSORS = [
  ['1', '00000000-0000-4000-8000-000000000000'],
  ['2026-02-30 10:00:00+00', '00000000-0000-4000-8000-000000000000'],
  ['0000-01-01 00:00:00+00', '00000000-0000-4000-8000-000000000000'],
  'not a number',
  '99999999999999999999',
  { seq: 1 },
].map((value) => Buffer.from(JSON.stringify(value)).toString('base64url'));
const DEEP = `${'['.repeat(1500)}${']'.repeat(1500)}`;
const MARKER = '__hostile_value__';

describe('hostile input on every route of the OpenAPI document', () => {
  const sut = useTestApp();
  const me = sut.user();
  let admin: SignedInUser;
  let doc: OpenApi;
  /** Real ids for path parameters, so requests reach past the 404s to the code under test. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    admin = await signUpAdmin(sut);
    const api = `/api/${me.userId}`;
    await addTasks(sut.http, me, 'Buy milk');
    const chat = await chatTurn(sut.http, me, 'add call mum');
    const campaign = await request(sut.http).post(`${api}/campaigns`).set(me.auth).send({ name: 'Founders' }).expect(201);
    await request(sut.http)
      .post(`${api}/campaigns/${campaign.body.id}/leads`)
      .set(me.auth)
      .send({ leads: [{ name: 'Ada', linkedinUrl: 'https://www.linkedin.com/in/ada' }] })
      .expect(201);
    const entry = await request(sut.http).post(`${api}/do-not-contact`).set(me.auth).send({ value: 'no@example.com' }).expect(201);
    const webhook = await request(sut.http).post(`${api}/webhooks`).set(me.auth).send({ url: 'https://hooks.example.com/h' }).expect(201);
    Object.assign(ids, {
      userId: me.userId,
      number: '1',
      campaignId: campaign.body.id as string,
      conversationId: chat.conversationId,
      entryId: entry.body.id as string,
      webhookId: webhook.body.id as string,
      seq: '1',
      id: chat.decision.id,
    });
    doc = (await request(sut.http).get('/docs-json').expect(200)).body as OpenApi;
  });

  it('covers the routes it should', () => {
    const routes = operations(doc).map(({ method, template }) => `${method} ${template}`);
    expect(routes.length).toBeGreaterThanOrEqual(33);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /api/{userId}/tasks',
        'POST /mcp',
        'GET /admin/decisions',
        'PATCH /api/{userId}/campaigns/{campaignId}',
      ]),
    );
  });

  it('answers no hostile request with a 500, refuses each hostile value naming its field, and changes nothing', async () => {
    const before = await snapshot();
    const cases = operations(doc).flatMap((operation) => casesFor(operation));
    expect(cases.length).toBeGreaterThan(700);

    const failures: string[] = [];
    for (const c of cases) {
      const token = c.path.startsWith('/admin') ? admin.token : me.token;
      let req = request(sut.http)[c.method as 'get'](c.path).set('Authorization', `Bearer ${token}`);
      if (c.path === '/mcp') req = req.set('Accept', 'application/json, text/event-stream');
      if (c.body !== undefined) {
        req = req
          .set('Content-Type', c.contentType ?? 'application/json')
          .serialize((data: unknown) => data as string)
          .send(c.body);
      }
      const res = await req;
      const body = res.body as { message?: unknown } | undefined;
      const message = typeof body?.message === 'string' ? body.message : res.text;
      const label = `${c.route} · ${c.what} → ${res.status} ${message.slice(0, 160)}`;
      if (res.status >= 500) failures.push(`500: ${label}`);
      else if (c.expect.kind === 'refused') {
        if (res.status !== 400) failures.push(`not refused with 400: ${label}`);
        else if (!message.includes(c.expect.field)) failures.push(`refusal does not name '${c.expect.field}': ${label}`);
        else if (res.body?.correlationId !== res.headers['x-request-id']) failures.push(`no error body: ${label}`);
      } else if (c.expect.kind === 'not-accepted' && res.status < 400) failures.push(`accepted: ${label}`);
    }

    expect(failures).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // About 800 requests one after the other: seconds on an idle machine, minutes on a busy one.
  }, 300_000);

  /**
   * Every table's rows, as a digest. Left out by design: admin reads (audited), the rate
   * limit counters (every request counts, refused or not), and the audit chain and its queue
   * and the Merkle tree over it (the sealer links rows meanwhile; what they link is audit_log,
   * which is compared).
   */
  async function snapshot(): Promise<Record<string, string>> {
    const dataSource = sut.app.get(DataSource);
    const tables = await dataSource.query<{ name: string }[]>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    const digests: Record<string, string> = {};
    const leftOut = new Set(['rate_limits', 'audit_chain', 'audit_unsealed', 'audit_tree_tiles']);
    for (const { name } of tables.filter((table) => !leftOut.has(table.name))) {
      const where = name === 'audit_log' ? `WHERE source <> 'admin'` : '';
      const [row] = await dataSource.query<{ digest: string | null }[]>(
        `SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${name}" t ${where}`,
      );
      digests[name] = row.digest ?? '';
    }
    return digests;
  }

  function operations(api: OpenApi): { method: string; template: string; operation: Operation }[] {
    return Object.entries(api.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), template, operation })),
    );
  }

  function casesFor({ method, template, operation }: { method: string; template: string; operation: Operation }): Case[] {
    const route = `${method} ${template}`;
    const params = operation.parameters ?? [];
    const pathParams = params.filter((p) => p.in === 'path');
    const queryParams = params.filter((p) => p.in === 'query');
    const bodySchema = resolve(operation.requestBody?.content['application/json']?.schema);
    const mcp = template === '/mcp' && method === 'POST';
    const validBody = mcp ? { jsonrpc: '2.0', id: 1, method: 'tools/list' } : bodySchema && sample(bodySchema);
    const path = (override: Record<string, string> = {}, query = '') =>
      template.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? ids[name] ?? 'x') + (query ? `?${query}` : '');
    const body = validBody === undefined ? undefined : JSON.stringify(validBody);
    const base = { route, method: method.toLowerCase(), body };
    const cases: Case[] = [];

    for (const param of pathParams) {
      const name = param.name;
      const value = ids[name] ?? 'x';
      cases.push({ ...base, what: `NUL in path ${name}`, path: path({ [name]: `${value}%00` }), expect: { kind: 'refused', field: name } });
      cases.push({
        ...base,
        what: `invalid UTF-8 in path ${name}`,
        path: path({ [name]: `${value}%ED%A0%80` }),
        expect: { kind: 'not-accepted' },
      });
      cases.push({ ...base, what: `overlong path ${name}`, path: path({ [name]: 'a'.repeat(5000) }), expect: { kind: 'not-accepted' } });
      if (resolve(param.schema)?.type === 'number' || resolve(param.schema)?.type === 'integer') {
        for (const number of NON_CANONICAL_NUMBERS) {
          cases.push({ ...base, what: `path ${name}=${number}`, path: path({ [name]: number }), expect: { kind: 'refused', field: name } });
        }
      }
    }

    for (const param of queryParams) {
      const name = param.name;
      const schema = resolve(param.schema) ?? {};
      const example = sample(schema);
      const valid = typeof example === 'string' || typeof example === 'number' ? String(example) : 'x';
      cases.push({ ...base, what: `NUL in query ${name}`, path: path({}, `${name}=a%00b`), expect: { kind: 'refused', field: name } });
      cases.push({
        ...base,
        what: `lone surrogate in query ${name}`,
        path: path({}, `${name}=%ED%A0%80`),
        expect: { kind: 'not-accepted' },
      });
      cases.push({
        ...base,
        what: `query ${name} twice`,
        path: path({}, `${name}=${valid}&${name}=${valid}`),
        expect: { kind: 'refused', field: name },
      });
      cases.push({ ...base, what: `query ${name} bracketed`, path: path({}, `${name}[a]=1`), expect: { kind: 'not-accepted' } });
      if (schema.type === 'number' || schema.type === 'integer') {
        for (const number of NON_CANONICAL_NUMBERS) {
          cases.push({
            ...base,
            what: `query ${name}=${number}`,
            path: path({}, `${name}=${number}`),
            expect: { kind: 'refused', field: name },
          });
        }
      }
      if (name === 'cursor') {
        for (const cursor of FORGED_CURSORS) {
          cases.push({
            ...base,
            what: `forged cursor ${cursor}`,
            path: path({}, `cursor=${cursor}`),
            expect: { kind: 'refused', field: 'cursor' },
          });
        }
      }
      if (schema.format === 'date-time') {
        for (const time of ['2026-02-30T00:00:00Z', '1', '0000-01-01T00:00:00Z', '275760-09-13T00:00:01Z']) {
          cases.push({
            ...base,
            what: `query ${name}=${time}`,
            path: path({}, `${name}=${encodeURIComponent(time)}`),
            expect: { kind: 'refused', field: name },
          });
        }
      }
    }
    if (queryParams.length > 0) {
      cases.push({
        ...base,
        what: '__proto__ in the query',
        path: path({}, '__proto__=1'),
        expect: { kind: 'refused', field: '__proto__' },
      });
    }

    if (validBody !== undefined) {
      const target = path();
      const raw = (what: string, text: string, expect: Case['expect'], contentType?: string): Case => ({
        ...base,
        what,
        path: target,
        body: text,
        contentType,
        expect,
      });
      cases.push({
        ...base,
        what: 'invalid UTF-8 bytes',
        path: target,
        body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]) as unknown as string,
        expect: { kind: 'refused', field: 'UTF-8' },
      });
      // JSON-RPC has its own answers to odd messages (a batch is Invalid Request): there, only no 500.
      for (const text of ['[]', '"text"', '42', 'null', 'true', '{', ''])
        cases.push(raw(`body ${text || '(empty)'}`, text, { kind: mcp ? 'no-500' : 'not-accepted' }));
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const rest = JSON.stringify(validBody).slice(1, -1);
        cases.push(raw(`${key} key`, `{"${key}":{"polluted":true}${rest ? `,${rest}` : ''}}`, { kind: 'refused', field: key }));
      }
      for (const [field, value] of leaves(validBody)) {
        const replace = (replacement: string) =>
          JSON.stringify(replaced(validBody, field, MARKER)).replace(JSON.stringify(MARKER), replacement);
        const top = field.split(/[.[]/)[0];
        if (typeof value === 'string') {
          cases.push(raw(`NUL in ${field}`, replace(JSON.stringify(`a${NUL}b`)), { kind: 'refused', field }));
          cases.push(raw(`lone surrogate in ${field}`, replace(JSON.stringify(`a${LONE_SURROGATE}b`)), { kind: 'refused', field }));
          // Beside an array's item a key is not JSON at all: that case is the parser's (above).
          if (!field.endsWith(']'))
            cases.push(
              raw(`NUL in a key beside ${field}`, replace(`${JSON.stringify(value)},${JSON.stringify(`x${NUL}`)}:1`), {
                kind: 'refused',
                field: 'key contains a NUL',
              }),
            );
        }
        cases.push(raw(`${field} nested 1 500 deep`, replace(DEEP), { kind: 'refused', field: top }));
        if (mcp) continue;
        for (const wrong of ['null', '7', '1e400', 'true', '[]', '{}', '"7"', JSON.stringify('x'.repeat(70_000))]) {
          // Only values of another JSON type: one of the same type may well be valid.
          if (typeof JSON.parse(wrong) === typeof value && (JSON.parse(wrong) === null) === (value === null)) continue;
          if (wrong === 'null' && isNullable(bodySchema!, field)) continue;
          cases.push(raw(`${field} = ${wrong.slice(0, 12)}`, replace(wrong), { kind: 'not-accepted' }));
        }
      }
    }
    return cases;
  }

  function resolve(schema: Schema | undefined): Schema | undefined {
    if (!schema) return undefined;
    if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').at(-1)!]);
    if (schema.allOf) return Object.assign({}, ...schema.allOf.map(resolve)) as Schema;
    return schema;
  }

  /** A valid value for a schema: its example, its first enum value, or the smallest that fits. */
  function sample(schema: Schema): unknown {
    if (schema.example !== undefined) return schema.example;
    if (schema.enum) return schema.enum[0];
    switch (schema.type) {
      case 'object': {
        // Every property, so that each is tried; optional ones too.
        return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, sample(resolve(property)!)]));
      }
      case 'array':
        return [sample(resolve(schema.items)!)];
      case 'number':
      case 'integer':
        return schema.minimum ?? 1;
      case 'boolean':
        return true;
      default:
        return schema.format === 'uuid' ? ids.campaignId : 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    }
  }

  /** Whether the schema at a leaf's path (`leads[0].email`) takes null. */
  function isNullable(schema: Schema, field: string): boolean {
    let current: Schema | undefined = schema;
    for (const segment of field.split(/\.|(?=\[)/)) {
      current = segment.startsWith('[') ? resolve(current?.items) : resolve(current?.properties?.[segment]);
    }
    return current?.nullable === true;
  }
});

/** A copy of `value` with the leaf at `path` (as `leaves` names it) replaced. */
function replaced(value: unknown, path: string, replacement: unknown, at = ''): unknown {
  if (at === path) return replacement;
  if (Array.isArray(value)) return value.map((item, index) => replaced(item, path, replacement, `${at}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [key, replaced(field, path, replacement, at ? `${at}.${key}` : key)]),
    );
  }
  return value;
}

/** Every leaf of a JSON value with its path (`leads[0].name`). */
function leaves(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, field]) => leaves(field, path ? `${path}.${key}` : key));
  }
  return path ? [[path, value]] : [];
}
