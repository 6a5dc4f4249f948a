import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundFetchError, type OutboundPost } from '../../src/application/shared/ports/outbound-fetch.port';
import { GuardedOutboundFetch } from '../../src/infrastructure/security/guarded-outbound-fetch';
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture';

const POST: OutboundPost = {
  body: '{"type":"x"}',
  contentType: 'application/json',
  maxBytes: 64,
  timeoutMs: 2_000,
  headers: { 'webhook-id': 'msg_1' },
};
const NAMES = ['hooks.example', 'private.example'];

async function failure(fetching: Promise<unknown>): Promise<string> {
  try {
    await fetching;
  } catch (error) {
    if (error instanceof OutboundFetchError) return error.reason;
    throw error;
  }
  throw new Error('not refused');
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
  });
}

/** The guarded fetch's POST (webhooks), against a local HTTPS fixture and a plain HTTP server on the operator's network. */
describe('GuardedOutboundFetch.post', () => {
  let fixture: HttpsFixture;
  let plain: Server;
  let plainPort: number;
  const received: { method?: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const resolve = (hostname: string) => (NAMES.includes(hostname) ? Promise.resolve(['127.0.0.1']) : Promise.reject(new Error('unknown')));

  beforeAll(async () => {
    fixture = await startHttpsFixture(NAMES);
    plain = createServer((request, response) => void readBody(request).then(() => response.end('ok')));
    await new Promise<void>((done) => plain.listen(0, '127.0.0.1', done));
    plainPort = (plain.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await fixture.close();
    await new Promise((done) => plain.close(done));
  });

  it('sends the body and the headers, and answers the status', async () => {
    fixture.serve('hooks.example', '/hook', (request) => {
      const entry = { method: request.method, headers: request.headers, body: '' };
      received.push(entry);
      return { status: 204, holdUntil: readBody(request).then((body) => (entry.body = body)) };
    });
    const sut = new GuardedOutboundFetch({ resolve, privateHosts: new Set(['hooks.example']), ca: fixture.ca });

    const response = await sut.post(fixture.url('hooks.example', '/hook'), POST);

    expect(response.status).toBe(204);
    expect(received).toEqual([
      {
        method: 'POST',
        body: '{"type":"x"}',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'content-length': '12',
          'webhook-id': 'msg_1',
          'user-agent': 'Bridle',
        }),
      },
    ]);
  });

  it('refuses a loopback address unless the operator allows the host, and follows no redirect', async () => {
    fixture.serve('hooks.example', '/moved', { status: 307, headers: { location: 'https://hooks.example/hook' } });
    expect(await failure(new GuardedOutboundFetch({ resolve, ca: fixture.ca }).post(fixture.url('hooks.example', '/hook'), POST))).toBe(
      'address',
    );
    const allowed = new GuardedOutboundFetch({ resolve, privateHosts: new Set(['hooks.example']), ca: fixture.ca });
    const before = fixture.count('hooks.example', '/hook');
    expect(await failure(allowed.post(fixture.url('hooks.example', '/moved'), POST))).toBe('redirect');
    expect(fixture.count('hooks.example', '/hook')).toBe(before);
  });

  it('cuts a long answer at the limit and still answers its status, where a GET refuses it', async () => {
    fixture.serve('hooks.example', '/long', { status: 200, body: 'x'.repeat(10_000) });
    const sut = new GuardedOutboundFetch({ resolve, privateHosts: new Set(['hooks.example']), ca: fixture.ca });
    const cut = await sut.post(fixture.url('hooks.example', '/long'), { ...POST, pastLimit: 'cut' });
    expect({ status: cut.status, length: cut.body.length, cut: cut.cut }).toEqual({ status: 200, length: 64, cut: true });
    expect(await failure(sut.post(fixture.url('hooks.example', '/long'), POST))).toBe('too_large');
  });

  it('gives up on a receiver slower than the deadline', async () => {
    let release!: () => void;
    fixture.serve('hooks.example', '/slow', { status: 200, holdUntil: new Promise<void>((done) => (release = done)) });
    const sut = new GuardedOutboundFetch({ resolve, privateHosts: new Set(['hooks.example']), ca: fixture.ca });
    expect(await failure(sut.post(fixture.url('hooks.example', '/slow'), { ...POST, timeoutMs: 200 }))).toBe('timeout');
    release();
  });

  it('speaks plain http only to a host the operator allows on their own network', async () => {
    const url = `http://private.example:${plainPort}/hook`;
    expect(await failure(new GuardedOutboundFetch({ resolve }).post(url, POST))).toBe('url');
    const allowed = new GuardedOutboundFetch({ resolve, privateHosts: new Set(['private.example']) });
    expect((await allowed.post(url, POST)).status).toBe(200);
    expect(await failure(allowed.get(url, POST))).toBe('url');
  });
});
