import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { generate } from 'selfsigned';

/** What the fixture answers at a path: a status, headers and a body, after an optional delay (or never, for `hang`). */
export interface FixtureAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Holds the answer until this promise settles: a slow server, released by the test, with no timer in the test. */
  readonly holdUntil?: Promise<unknown>;
}

export interface HttpsFixture {
  readonly port: number;
  /** The fixture's self-signed certificate (PEM), to trust as a certificate authority. */
  readonly ca: string;
  /** `https://<name>:<port><path>`. */
  url(name: string, path: string): string;
  /** Sets what `<name>` answers at `path` (the Host header tells the names apart). */
  serve(name: string, path: string, answer: FixtureAnswer | ((request: IncomingMessage) => FixtureAnswer)): void;
  /** How many requests reached `<name>` at `path`. */
  count(name: string, path: string): number;
  /** The most requests to `<name>` at `path` that were open at one time. */
  maxOpen(name: string, path: string): number;
  /** Requests to every name and path. */
  total(): number;
  close(): Promise<void>;
}

/**
 * A local HTTPS server with a certificate made for the test's names (subjectAltName), signed
 * by itself: a client metadata document's host, reached through a resolver that maps those
 * names to 127.0.0.1. Every request is counted by name and path.
 */
export async function startHttpsFixture(names: readonly string[]): Promise<HttpsFixture> {
  const pems = await generate([{ name: 'commonName', value: names[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: names.map((value) => ({ type: 2 as const, value })) },
    ],
  });
  const answers = new Map<string, FixtureAnswer | ((request: IncomingMessage) => FixtureAnswer)>();
  const counts = new Map<string, number>();
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req: IncomingMessage, res: ServerResponse) => {
    const key = `${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    open.set(key, (open.get(key) ?? 0) + 1);
    maxOpen.set(key, Math.max(maxOpen.get(key) ?? 0, open.get(key)!));
    res.on('close', () => open.set(key, open.get(key)! - 1));
    const found = answers.get(key);
    const answer = typeof found === 'function' ? found(req) : (found ?? { status: 404, body: 'not found' });
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '');
    };
    if (answer.holdUntil) void answer.holdUntil.then(send, send);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    ca: pems.cert,
    url: (name, path) => `https://${name}:${port}${path}`,
    serve: (name, path, answer) => void answers.set(`${name}${path}`, answer),
    count: (name, path) => counts.get(`${name}${path}`) ?? 0,
    maxOpen: (name, path) => maxOpen.get(`${name}${path}`) ?? 0,
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
