/**
 * Why an outbound fetch was refused or failed, as a word a metric can count:
 * - `url`: not an https URL the fetcher takes;
 * - `not_allowed`: the host is not on the caller's allowlist;
 * - `resolve`: the name did not resolve;
 * - `address`: it resolved to a special-use address (loopback, private, link-local…);
 * - `redirect`: the answer was a 3xx, which is never followed;
 * - `too_large`: the body was longer than the limit;
 * - `timeout`: the whole fetch took longer than its limit;
 * - `network`: TLS, the connection or the stream failed.
 */
export type OutboundFetchFailure = 'url' | 'not_allowed' | 'resolve' | 'address' | 'redirect' | 'too_large' | 'timeout' | 'network';

export class OutboundFetchError extends Error {
  constructor(
    readonly reason: OutboundFetchFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundFetchError';
  }
}

export interface OutboundRequest {
  /** The body's limit in bytes: a longer one is cut off and refused (`too_large`). */
  readonly maxBytes: number;
  /** The whole fetch's limit, resolving the name included (`timeout`). */
  readonly timeoutMs: number;
  readonly accept?: string;
  /**
   * What a body past `maxBytes` does: `refuse` (the default) fails the fetch (`too_large`);
   * `cut` stops reading there and answers the status with the body read so far, for a caller
   * that needs the status and at most a glimpse of the body (a webhook's receiver).
   */
  readonly pastLimit?: 'refuse' | 'cut';
}

/** A POST: its body, sent as is, and the headers besides `content-type`, `content-length` and `user-agent`. */
export interface OutboundPost extends OutboundRequest {
  readonly body: string;
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface OutboundResponse {
  readonly status: number;
  /** Header names lower-cased; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Whether the body was cut at `maxBytes` (`pastLimit: 'cut'`). */
  readonly cut?: boolean;
}

/**
 * A request from Bridle to an address someone else chose (a GET of a client's metadata
 * document, a POST of a webhook), guarded against server-side request forgery: the name is
 * resolved first, an address in a special-use range is refused, the connection goes to the
 * address that was checked (a second resolution cannot swap it), no redirect is followed, and
 * the time and the size are bounded. https only; a POST may use http to a host the operator
 * allows to be private (OUTBOUND_PRIVATE_HOSTS), a service on their own network.
 * @throws OutboundFetchError
 */
export abstract class OutboundFetch {
  abstract get(url: string, request: OutboundRequest): Promise<OutboundResponse>;
  abstract post(url: string, request: OutboundPost): Promise<OutboundResponse>;
}
