import type { NotificationEvent } from '../../../domain/notifications/notification';
import type { WebhookDelivery, WebhookEndpoint, WebhookOwner } from '../../../domain/webhooks/webhook-endpoint';
import type { Page } from '../../shared/page';

export interface NewWebhookEndpoint {
  readonly owner: WebhookOwner;
  /** The person who registered it (for a deployment endpoint, the admin). */
  readonly createdBy: string;
  readonly url: string;
  readonly description: string;
  readonly events: readonly NotificationEvent[] | null;
  readonly allPeople: boolean;
  /** In the clear: the adapter keeps it sealed. */
  readonly secret: string;
}

/** A change to an endpoint; absent fields stay as they are. Enabling clears the disabled state and starts the head's retries afresh. */
export interface WebhookChange {
  readonly url?: string;
  readonly description?: string;
  readonly events?: readonly NotificationEvent[] | null;
  readonly allPeople?: boolean;
  readonly enabled?: boolean;
}

/**
 * Webhook endpoints as their owners manage them. Every method is scoped to an owner: another
 * owner's endpoint is as absent as a missing one. Secrets go in, never out.
 */
export abstract class WebhookEndpointRepository {
  /**
   * Registers it; it receives the notifications written from now on.
   * @returns null when the owner already has `limit` endpoints, or the person no longer exists.
   */
  abstract create(endpoint: NewWebhookEndpoint, limit: number, now: Date): Promise<WebhookEndpoint | null>;
  /** The owner's endpoints, oldest first. */
  abstract list(owner: WebhookOwner): Promise<WebhookEndpoint[]>;
  abstract find(owner: WebhookOwner, id: string): Promise<WebhookEndpoint | null>;
  abstract update(owner: WebhookOwner, id: string, change: WebhookChange, now: Date): Promise<WebhookEndpoint | null>;
  /** @returns whether there was such an endpoint; its delivery log goes with it. */
  abstract remove(owner: WebhookOwner, id: string): Promise<boolean>;
  /** A new secret; the old one keeps signing next to it until `previousUntil` (null: it stops now). */
  abstract rotateSecret(
    owner: WebhookOwner,
    id: string,
    secret: string,
    previousUntil: Date | null,
    now: Date,
  ): Promise<WebhookEndpoint | null>;
  /** The endpoint's delivery log, newest first; null when there is no such endpoint. */
  abstract deliveries(
    owner: WebhookOwner,
    id: string,
    page: { readonly limit: number; readonly cursor: string | null },
  ): Promise<Page<WebhookDelivery> | null>;
}
