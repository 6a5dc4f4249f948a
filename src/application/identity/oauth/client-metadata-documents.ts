import { Injectable } from '@nestjs/common';
import { CLIENT_METADATA_LIMITS, clientIdUrlProblem, clientMetadataDocument } from '../../../domain/identity/client-metadata-document';
import { type ClientRegistration, OAuthRefusedError } from '../../../domain/identity/oauth';
import { Clock } from '../../shared/ports/clock.port';
import { Logger } from '../../shared/ports/logger.port';
import { Metrics } from '../../shared/ports/metrics.port';
import { OutboundFetch, OutboundFetchError, type OutboundResponse } from '../../shared/ports/outbound-fetch.port';
import { RateCounter } from '../../shared/ports/rate-counter.port';

/** Whether and where URL client_ids are fetched (OAUTH_CLIENT_METADATA_*). */
export abstract class ClientMetadataSettings {
  abstract readonly fetch: boolean;
  /** The only hosts fetched from; empty: any. */
  abstract readonly hosts: ReadonlySet<string>;
  abstract readonly timeoutMs: number;
}

export const CLIENT_METADATA_CACHE = {
  /** Documents kept at once; the least recently used goes first. */
  entries: 1_000,
  /** How long a document is kept when its answer says nothing about caching. */
  defaultSeconds: 300,
  /** The longest a document is kept, whatever its answer says. */
  maxSeconds: 3_600,
} as const;

/** Fetches, counted on every replica's shared counters (RateCounter): per host, and in total. */
export const CLIENT_METADATA_FETCH_LIMITS = { windowMs: 60_000, perHost: 10, total: 100 } as const;

interface Cached {
  readonly registration: ClientRegistration;
  readonly until: number;
}

/**
 * Client ID Metadata Documents: the registration of a client that names itself by an https
 * URL is the JSON document at that URL, fetched over the guarded OutboundFetch. A document is
 * kept as its answer's Cache-Control allows (up to an hour, 1 000 documents); a refusal is
 * never kept. Lookups of one URL share a fetch in flight, so a burst of requests naming a slow
 * URL fetches it once; fetches are limited per host and in total, on every replica's counters.
 * Every refusal is an OAuthRefusedError (invalid_client) that says what was wrong; the log
 * names the host only, never the document.
 */
@Injectable()
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Cached>>();
  private readonly logger: Logger;

  constructor(
    private readonly fetcher: OutboundFetch,
    private readonly settings: ClientMetadataSettings,
    private readonly counter: RateCounter,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext('OAuth');
  }

  /** The client's registration, from the cache or fetched. @throws OAuthRefusedError (invalid_client) */
  async registration(clientId: string): Promise<ClientRegistration> {
    const problem = clientIdUrlProblem(clientId);
    if (problem) throw new OAuthRefusedError('invalid_client', problem);
    if (!this.settings.fetch) {
      throw new OAuthRefusedError(
        'invalid_client',
        'this server does not fetch client metadata documents: register the client at /register',
      );
    }
    const host = new URL(clientId).hostname;
    if (this.settings.hosts.size > 0 && !this.settings.hosts.has(host)) {
      throw new OAuthRefusedError('invalid_client', `client metadata documents are not fetched from ${host} here`);
    }
    const now = this.clock.now().getTime();
    const cached = this.cache.get(clientId);
    if (cached && cached.until > now) {
      this.cache.delete(clientId);
      this.cache.set(clientId, cached);
      return cached.registration;
    }
    let pending = this.inFlight.get(clientId);
    if (!pending) {
      pending = this.fetch(clientId, host).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pending);
    }
    return (await pending).registration;
  }

  private async fetch(url: string, host: string): Promise<Cached> {
    const outcome = (result: string) => this.metrics.outboundFetch('client_metadata', result);
    const refuse = (result: string, description: string): never => {
      outcome(result);
      this.logger.warn({ msg: 'a client metadata document was refused', host, reason: result });
      throw new OAuthRefusedError('invalid_client', description);
    };
    const { windowMs, perHost, total } = CLIENT_METADATA_FETCH_LIMITS;
    if (
      !(await this.counter.take(`client-metadata:host:${host}`, windowMs, perHost)) ||
      !(await this.counter.take('client-metadata:all', windowMs, total))
    ) {
      return refuse('rate_limited', 'too many client metadata documents fetched in the last minute: try again shortly');
    }
    let response: OutboundResponse;
    try {
      response = await this.fetcher.get(url, {
        maxBytes: CLIENT_METADATA_LIMITS.documentBytes,
        timeoutMs: this.settings.timeoutMs,
        accept: 'application/json',
      });
    } catch (error) {
      if (error instanceof OutboundFetchError) {
        return refuse(error.reason, `the client metadata document at ${host} could not be fetched: ${error.message}`);
      }
      throw error;
    }
    if (response.status !== 200) return refuse('status', `the client metadata document at ${host} answered ${response.status}, not 200`);
    let document: unknown;
    try {
      document = JSON.parse(response.body.toString('utf8'));
    } catch {
      return refuse('invalid', `the client metadata document at ${host} is not JSON`);
    }
    let registration: ClientRegistration;
    try {
      registration = clientMetadataDocument(url, document);
    } catch (error) {
      if (error instanceof OAuthRefusedError) return refuse('invalid', error.message);
      throw error;
    }
    outcome('ok');
    const seconds = cacheSeconds(response.headers['cache-control']);
    const entry = { registration, until: this.clock.now().getTime() + seconds * 1000 };
    if (seconds > 0) this.keep(url, entry);
    return entry;
  }

  private keep(url: string, entry: Cached): void {
    this.cache.delete(url);
    this.cache.set(url, entry);
    while (this.cache.size > CLIENT_METADATA_CACHE.entries) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** How long an answer may be kept: none for no-store, no-cache or private, max-age up to the cap, the default otherwise. */
export function cacheSeconds(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return CLIENT_METADATA_CACHE.defaultSeconds;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((item) => item.trim());
  if (directives.some((item) => item === 'no-store' || item === 'no-cache' || item === 'private')) return 0;
  const maxAge = directives.map((item) => /^max-age="?(\d+)"?$/.exec(item)).find(Boolean);
  if (!maxAge) return CLIENT_METADATA_CACHE.defaultSeconds;
  return Math.min(Number(maxAge[1]), CLIENT_METADATA_CACHE.maxSeconds);
}
