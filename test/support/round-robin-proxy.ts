import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the proxy passed it on. */
export interface ProxyHit {
  readonly target: string;
  readonly method: string;
  readonly path: string;
  readonly sessionId: string | undefined;
  /** For a JSON-RPC body: its method, or `response` for a client's answer to the server. */
  readonly rpc: string | undefined;
}

export interface RoundRobinProxy {
  readonly url: string;
  /** Every request passed on so far, in order. */
  readonly hits: ProxyHit[];
  close(): Promise<void>;
}

/**
 * A load balancer as the operations guide's nginx and HAProxy configurations behave, small
 * enough to run inside a test: requests go to the targets in turn with no stickiness, bodies
 * and event streams pass through as they come, and a target that refuses the connection (a
 * replica down or restarting) is skipped for the next one, as nginx's `proxy_next_upstream
 * error` does for a request it could not send. So is a kept-alive connection the target closed
 * before any response byte (a draining replica closes its idle ones, and may do so just as the
 * proxy sends on one: Node's `request.reusedSocket`), as the operations guide asks of a proxy.
 * A request is tried on each target at most once. `targets` is read on every request, so a
 * test can replace a restarted replica's address.
 */
export async function startRoundRobinProxy(targets: () => readonly string[]): Promise<RoundRobinProxy> {
  const hits: ProxyHit[] = [];
  let next = 0;
  const sockets = new Set<Socket>();

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: ReadonlySet<string>): void => {
    // Only the targets not tried yet: with requests in parallel, the turn alone may come back to a refusing one.
    const list = targets().filter((target) => !tried.has(target));
    if (list.length === 0) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('no replica answered');
      return;
    }
    const target = list[next++ % list.length];
    const url = new URL(req.url ?? '/', target);
    const upstream = httpRequest(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host, 'content-length': String(body.length) } },
      (answer) => {
        hits.push({
          target,
          method: req.method ?? '',
          path: req.url ?? '',
          sessionId: headerValue(req.headers['mcp-session-id']),
          rpc: rpcOf(body),
        });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // A response cut upstream is cut here too, as a proxy does: piping alone would leave it open, unended.
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
        });
        res.on('close', () => answer.destroy());
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      const unanswered = error.code === 'ECONNREFUSED' || (upstream.reusedSocket && error.code === 'ECONNRESET');
      if (!res.headersSent && unanswered) return forward(req, res, body, new Set([...tried, target]));
      res.destroy();
    });
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), new Set()));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function rpcOf(body: Buffer): string | undefined {
  try {
    const message = JSON.parse(body.toString()) as { method?: unknown; result?: unknown; error?: unknown };
    if (typeof message.method === 'string') return message.method;
    return 'result' in message || 'error' in message ? 'response' : undefined;
  } catch {
    return undefined;
  }
}
