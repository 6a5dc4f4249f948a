import { Injectable } from '@nestjs/common';
import type { NewNotification } from '../../domain/notifications/notification';
import { afterFailedAttempt, answerOutcome, webhookBody, webhookMessageId } from '../../domain/webhooks/webhook-delivery';
import { Clock } from '../shared/ports/clock.port';
import { Logger } from '../shared/ports/logger.port';
import { Metrics } from '../shared/ports/metrics.port';
import { OutboundFetch, OutboundFetchError } from '../shared/ports/outbound-fetch.port';
import { type AttemptOutcome, type ClaimedEndpoint, type PendingMessage, WebhookOutbox } from './ports/webhook-outbox.port';
import { WebhookSigner } from './ports/webhook-signer.port';
import { WebhookSettings } from './webhook-settings';

/** A receiver's answer is read this far at most: its status is what counts. */
const RESPONSE_BYTES = 4 * 1024;
/** Messages one claim delivers before it lets the endpoint go, so that a long backlog takes turns with the others. */
const MESSAGES_PER_CLAIM = 50;
/** Delivery log rows kept per endpoint, whatever their age. */
export const DELIVERIES_PER_ENDPOINT = 1_000;

/**
 * Delivers the notifications outbox to webhook endpoints (docs/webhooks.md). Every process
 * runs it every WEBHOOK_POLL_MS: it claims as many due endpoints as it has free slots
 * (WEBHOOK_CONCURRENCY), and works each in its own task, one message at a time in order,
 * while the next polls go on; so a slow or refused endpoint holds one slot for at most
 * WEBHOOK_TIMEOUT_MS and delays no other. Each attempt is signed afresh (Standard Webhooks)
 * under the message's stable webhook-id and sent through the guarded OutboundFetch.
 */
@Injectable()
export class DeliverWebhooksUseCase {
  private readonly working = new Set<Promise<void>>();
  private claiming: Promise<unknown> | undefined;
  private stopping = false;
  private readonly logger: Logger;

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly fetcher: OutboundFetch,
    private readonly signer: WebhookSigner,
    private readonly settings: WebhookSettings,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext('Webhooks');
  }

  /** Long enough for one attempt and its record, with room to spare; renewed after every delivered message. */
  get leaseMs(): number {
    return 2 * this.settings.timeoutMs + 5_000;
  }

  /** One poll: claims what the free slots can take and starts working it; does not wait for the work. */
  async run(): Promise<number> {
    const free = this.settings.concurrency - this.working.size;
    if (this.stopping || free <= 0) return 0;
    const claiming = this.outbox.claim(free, this.leaseMs, this.clock.now());
    this.claiming = claiming;
    const claimed = await claiming;
    for (const endpoint of claimed) {
      const work = this.work(endpoint)
        .catch((error: unknown) => this.logger.error({ msg: 'a webhook delivery failed', webhookId: endpoint.id, err: error }))
        .finally(() => this.working.delete(work));
      this.working.add(work);
    }
    return claimed.length;
  }

  /** Waits for the work under way, the work it leads to included. */
  async idle(): Promise<void> {
    await this.claiming?.catch(() => undefined);
    while (this.working.size > 0) await Promise.allSettled([...this.working]);
  }

  /** Claims nothing more, and waits for the work under way: at shutdown, before the database closes. */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.idle();
  }

  /** Deletes delivery log rows past WEBHOOK_DELIVERY_RETENTION_DAYS, and each endpoint's past its newest 1 000. */
  async prune(): Promise<number> {
    if (this.settings.legalHold) return 0;
    const before = new Date(this.clock.now().getTime() - this.settings.retentionDays * 86_400_000);
    return this.outbox.prune(before, DELIVERIES_PER_ENDPOINT);
  }

  private async work(endpoint: ClaimedEndpoint): Promise<void> {
    let current = endpoint;
    for (let sent = 0; sent < MESSAGES_PER_CLAIM; sent++) {
      const message = await this.outbox.head(current);
      if (!message) break;
      const outcome = await this.attempt(current, message);
      if (outcome === 'stop') return;
      current = { ...current, head: null };
    }
    await this.outbox.release(current);
  }

  /** One attempt, recorded. @returns `next` when the message went through and the lease is still held. */
  private async attempt(endpoint: ClaimedEndpoint, message: PendingMessage): Promise<'next' | 'stop'> {
    const retried = endpoint.head?.notificationId === message.notificationId ? endpoint.head : null;
    const attempt = (retried?.attempts ?? 0) + 1;
    const messageId = webhookMessageId(message.notificationId);
    const body = webhookBody(message, this.settings.publicBaseUrl);
    const attemptedAt = this.clock.now();
    const firstAttemptAt = retried?.firstAttemptAt ?? attemptedAt;
    const { status, failure } = await this.send(endpoint, messageId, attemptedAt, body);
    const now = this.clock.now();
    const outcome = this.outcomeOf(endpoint, messageId, status, attempt, firstAttemptAt, now);
    const kept = await this.outbox.record(
      {
        endpoint,
        message,
        messageId,
        attempt,
        firstAttemptAt,
        attemptedAt,
        durationMs: Math.max(0, now.getTime() - attemptedAt.getTime()),
        status,
        failure,
        outcome,
      },
      this.leaseMs,
      now,
    );
    if (kept && (outcome.kind === 'failed' || outcome.kind === 'gone')) {
      this.logger.warn({
        msg: 'a webhook endpoint was disabled',
        webhookId: endpoint.id,
        host: hostOf(endpoint.url),
        reason: outcome.kind === 'gone' ? 'gone' : 'failing',
        messageId,
        attempts: attempt,
      });
    }
    return kept && outcome.kind === 'delivered' ? 'next' : 'stop';
  }

  private async send(
    endpoint: ClaimedEndpoint,
    messageId: string,
    at: Date,
    body: string,
  ): Promise<{ status: number | null; failure: string | null }> {
    const headers = {
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': this.signer.sign(endpoint.secrets, messageId, at, body),
    };
    try {
      const response = await this.fetcher.post(endpoint.url, {
        body,
        contentType: 'application/json',
        headers,
        maxBytes: RESPONSE_BYTES,
        pastLimit: 'cut',
        timeoutMs: this.settings.timeoutMs,
      });
      this.metrics.outboundFetch('webhook', answerOutcome(response.status) === 'delivered' ? 'ok' : 'status');
      return { status: response.status, failure: null };
    } catch (error) {
      if (!(error instanceof OutboundFetchError)) throw error;
      this.metrics.outboundFetch('webhook', error.reason);
      return { status: null, failure: error.reason };
    }
  }

  private outcomeOf(
    endpoint: ClaimedEndpoint,
    messageId: string,
    status: number | null,
    attempts: number,
    firstAttemptAt: Date,
    now: Date,
  ): AttemptOutcome {
    const answered = status === null ? 'failed' : answerOutcome(status);
    if (answered === 'delivered') return { kind: 'delivered' };
    if (answered === 'gone') return { kind: 'gone', notice: this.notice(endpoint, 'gone', messageId, now) };
    const next = afterFailedAttempt(this.settings.retry, attempts, firstAttemptAt, now);
    return next.kind === 'retry'
      ? { kind: 'retrying', nextAttemptAt: next.at }
      : { kind: 'failed', notice: this.notice(endpoint, 'failing', messageId, now) };
  }

  /** The owner's notice (every admin's, for a deployment endpoint): the endpoint's host, never its full URL. */
  private notice(endpoint: ClaimedEndpoint, reason: 'failing' | 'gone', messageId: string, now: Date): NewNotification {
    return {
      recipientId: endpoint.ownerId,
      event: 'webhook.disabled',
      subject: { kind: 'webhook', id: endpoint.id },
      facts: { reason, host: hostOf(endpoint.url), messageId },
      at: now,
    };
  }
}

function hostOf(url: string): string {
  return new URL(url).host;
}
