import type { RetryPolicy } from '../../domain/webhooks/webhook-delivery';

/** The WEBHOOK_* settings and what delivery needs of the others (docs/webhooks.md). */
export abstract class WebhookSettings {
  /** PUBLIC_BASE_URL without its trailing slash: the start of every console link. */
  abstract readonly publicBaseUrl: string;
  /** Hosts the operator allows on their own network (OUTBOUND_PRIVATE_HOSTS): http, and special-use addresses. */
  abstract readonly privateHosts: ReadonlySet<string>;
  /** Endpoints per person, and for the deployment. */
  abstract readonly endpointsPerOwner: number;
  abstract readonly timeoutMs: number;
  /** Endpoints one process delivers to at once. */
  abstract readonly concurrency: number;
  abstract readonly retry: RetryPolicy;
  /** How long the delivery log keeps an attempt. */
  abstract readonly retentionDays: number;
  /** RETENTION_LEGAL_HOLD: nothing is pruned. */
  abstract readonly legalHold: boolean;
}
