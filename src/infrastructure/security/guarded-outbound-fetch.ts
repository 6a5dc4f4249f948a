import { lookup as dnsLookup } from 'node:dns/promises';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  OutboundFetch,
  OutboundFetchError,
  type OutboundPost,
  type OutboundRequest,
  type OutboundResponse,
} from '../../application/shared/ports/outbound-fetch.port';
import { specialUseRange } from './special-use-addresses';

/** How names are resolved: every address of the name (A and AAAA). Tests map names to a local fixture. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * How the fetcher reaches the network: the resolver and any certificate authority trusted
 * besides the system's. A class, so that it is its own injection token: tests give a resolver
 * that maps a name to a local fixture, and the fixture's certificate.
 */
export class OutboundNetwork {
  constructor(
    readonly resolve: HostResolver = systemResolver,
    readonly ca?: string | readonly string[],
  ) {}
}

/** The request line and what goes with it. */
interface Outgoing {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

export interface GuardedOutboundFetchOptions {
  readonly resolve?: HostResolver;
  /**
   * Host names that may resolve to special-use addresses (lower case): for a service on the
   * operator's own network, which a POST may also reach over plain http. Empty by default:
   * every such address is refused.
   */
  readonly privateHosts?: ReadonlySet<string>;
  /** Certificate authorities trusted besides the system's (PEM): the tests' own. */
  readonly ca?: string | readonly string[];
}

/**
 * OutboundFetch over node's https, guarded against SSRF: the host name is resolved once
 * (`resolve`), every address it has is checked (specialUseRange), and the socket is opened to
 * the first checked address by a `lookup` that returns only it, while TLS still verifies the
 * certificate against the name (SNI and Host are the name). A 3xx is refused, not followed;
 * the body is read up to `maxBytes` and the request destroyed past it (refused, or answered as
 * cut); one timer bounds the whole fetch, resolution included. No agent: no socket is reused
 * between fetches. Plain http only for a POST to one of `privateHosts`.
 */
export class GuardedOutboundFetch extends OutboundFetch {
  private readonly resolve: HostResolver;
  private readonly privateHosts: ReadonlySet<string>;

  constructor(private readonly options: GuardedOutboundFetchOptions = {}) {
    super();
    this.resolve = options.resolve ?? systemResolver;
    this.privateHosts = options.privateHosts ?? new Set();
  }

  async get(url: string, request: OutboundRequest): Promise<OutboundResponse> {
    return this.fetch(httpsUrl(url), { method: 'GET', headers: { accept: request.accept ?? '*/*' } }, request);
  }

  async post(url: string, request: OutboundPost): Promise<OutboundResponse> {
    const target = postUrl(url, this.privateHosts);
    const body = Buffer.from(request.body, 'utf8');
    const headers = {
      ...request.headers,
      accept: request.accept ?? '*/*',
      'content-type': request.contentType,
      'content-length': String(body.length),
    };
    return this.fetch(target, { method: 'POST', headers, body }, request);
  }

  private async fetch(target: URL, outgoing: Outgoing, request: OutboundRequest): Promise<OutboundResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), request.timeoutMs);
    try {
      const address = await withAbort(this.vettedAddress(target.hostname), controller.signal, request.timeoutMs);
      return await this.send(target, address, outgoing, request, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) throw new OutboundFetchError('timeout', `no answer within ${request.timeoutMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The address to connect to: the literal, or the name's first address, once every one of them has been checked. */
  private async vettedAddress(hostname: string): Promise<string> {
    const name = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    let addresses: string[];
    if (isIP(name)) addresses = [name];
    else {
      try {
        addresses = await this.resolve(name);
      } catch {
        throw new OutboundFetchError('resolve', `${name} does not resolve`);
      }
      if (addresses.length === 0) throw new OutboundFetchError('resolve', `${name} does not resolve`);
    }
    if (!this.privateHosts.has(name)) {
      for (const address of addresses) {
        const range = specialUseRange(address);
        if (range) throw new OutboundFetchError('address', `${name} resolves to a special-use address (${range})`);
      }
    }
    return addresses[0];
  }

  private send(target: URL, address: string, outgoing: Outgoing, request: OutboundRequest, signal: AbortSignal): Promise<OutboundResponse> {
    const family = isIP(address);
    // Whatever net asks (one address, or all of them for happy eyeballs), the checked one.
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const secure = target.protocol === 'https:';
    return new Promise<OutboundResponse>((resolve, reject) => {
      const options = {
        hostname,
        port: target.port || (secure ? 443 : 80),
        path: `${target.pathname}${target.search}`,
        method: outgoing.method,
        headers: { ...outgoing.headers, 'user-agent': 'Bridle' },
        lookup,
        agent: false as const,
        signal,
      };
      const onResponse = (incoming: IncomingMessage) => {
        const status = incoming.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          incoming.destroy();
          return reject(new OutboundFetchError('redirect', `answered ${status}: redirects are not followed`));
        }
        const cutting = request.pastLimit === 'cut';
        const tooLarge = () => new OutboundFetchError('too_large', `the body is longer than ${request.maxBytes} bytes`);
        const declared = Number(incoming.headers['content-length']);
        if (!cutting && Number.isFinite(declared) && declared > request.maxBytes) {
          incoming.destroy();
          return reject(tooLarge());
        }
        const chunks: Buffer[] = [];
        let length = 0;
        const answer = (cut: boolean) => resolve({ status, headers: headersOf(incoming.headers), body: Buffer.concat(chunks), cut });
        incoming.on('data', (chunk: Buffer) => {
          length += chunk.length;
          if (length > request.maxBytes) {
            if (cutting) chunks.push(chunk.subarray(0, request.maxBytes - (length - chunk.length)));
            incoming.destroy();
            sent.destroy();
            return cutting ? answer(true) : reject(tooLarge());
          }
          chunks.push(chunk);
        });
        incoming.on('end', () => answer(false));
        incoming.on('error', (error) => reject(networkError(error)));
      };
      const sent = secure
        ? httpsRequest(
            {
              ...options,
              protocol: 'https:',
              ...(isIP(hostname) ? {} : { servername: hostname }),
              ...(this.options.ca ? { ca: [this.options.ca].flat() } : {}),
            },
            onResponse,
          )
        : httpRequest({ ...options, protocol: 'http:' }, onResponse);
      sent.on('error', (error) => reject(networkError(error)));
      sent.end(outgoing.body);
    });
  }
}

function httpsUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundFetchError('url', 'not an absolute URL');
  }
  if (parsed.protocol !== 'https:') throw new OutboundFetchError('url', 'only https URLs are fetched');
  if (parsed.username || parsed.password) throw new OutboundFetchError('url', 'a URL with user info is not fetched');
  return parsed;
}

/** An https URL, or an http one to a host the operator allows to be private (their own network). */
function postUrl(url: string, privateHosts: ReadonlySet<string>): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundFetchError('url', 'not an absolute URL');
  }
  if (parsed.protocol === 'http:' && privateHosts.has(parsed.hostname.toLowerCase())) {
    if (parsed.username || parsed.password) throw new OutboundFetchError('url', 'a URL with user info is not fetched');
    return parsed;
  }
  return httpsUrl(url);
}

function headersOf(headers: NodeJS.Dict<string | string[]>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function networkError(error: unknown): OutboundFetchError {
  if (error instanceof OutboundFetchError) return error;
  const code = (error as { code?: unknown }).code;
  return new OutboundFetchError('network', `the fetch failed${typeof code === 'string' ? ` (${code})` : ''}`);
}

/** The work, or a rejection as soon as the signal aborts (name resolution takes no signal). */
function withAbort<T>(work: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new OutboundFetchError('timeout', `no answer within ${timeoutMs} ms`));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
