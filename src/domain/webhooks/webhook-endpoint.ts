import { NOTIFICATION_EVENTS, type NotificationEvent } from '../notifications/notification';
import { DomainError, DomainValidationError } from '../shared/domain-error';
import { labelProblem } from '../shared/untrusted-text-normalisation';
import { webhookUrlProblem } from './webhook-url';

/**
 * Whose a webhook endpoint is: a person's receives the notifications addressed to them; the
 * deployment's (managed by admins) receives those addressed to every admin, and, when
 * `allPeople` is ticked, every person's too.
 */
export type WebhookOwner = { readonly kind: 'person'; readonly userId: string } | { readonly kind: 'deployment' };

/**
 * Why an endpoint is disabled: its owner turned it off (`owner`), a message still failed when
 * its retry window closed (`failing`), or the receiver answered 410 Gone (`gone`).
 */
export const WEBHOOK_DISABLED_REASONS = ['owner', 'failing', 'gone'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

/** How one attempt ended: the message went through, will be tried again, failed for good, or the receiver is gone. */
export const DELIVERY_OUTCOMES = ['delivered', 'retrying', 'failed', 'gone'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** A webhook endpoint as its owner sees it: never its secret, only the secret's last characters. */
export interface WebhookEndpoint {
  readonly id: string;
  /** The person it is for; null for a deployment endpoint. */
  readonly ownerId: string | null;
  readonly url: string;
  readonly description: string;
  /** The events it receives; null: every event, those added later included. */
  readonly events: readonly NotificationEvent[] | null;
  /** A deployment endpoint's: every person's events too, not only the admins'. */
  readonly allPeople: boolean;
  readonly enabled: boolean;
  readonly disabledReason: WebhookDisabledReason | null;
  readonly disabledAt: Date | null;
  /** The secret's last four characters, to tell secrets apart. */
  readonly secretHint: string;
  /** Until when deliveries are also signed with the secret before the last rotation; null when they are not. */
  readonly previousSecretUntil: Date | null;
  readonly lastAttempt: { readonly at: Date; readonly outcome: DeliveryOutcome; readonly status: number | null } | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One attempt to deliver one message, as the delivery log shows it. */
export interface WebhookDelivery {
  /** The `webhook-id` header: the same on every attempt of one message. */
  readonly messageId: string;
  readonly event: string;
  readonly attempt: number;
  readonly attemptedAt: Date;
  readonly outcome: DeliveryOutcome;
  /** The receiver's HTTP status; null when there was no answer. */
  readonly status: number | null;
  /** Why there was no usable answer, as a word (`timeout`, `address`, `redirect`…); null when there was one. */
  readonly failure: string | null;
  readonly durationMs: number;
  readonly nextAttemptAt: Date | null;
}

export const WEBHOOK_LIMITS = {
  urlLength: 2_000,
  descriptionLength: 200,
  /** Hours the secret before a rotation keeps signing next to the new one, at most (a week). */
  keepPreviousHours: 168,
} as const;

/** Hours the previous secret keeps signing after a rotation, unless the rotation says otherwise. */
export const DEFAULT_KEEP_PREVIOUS_HOURS = 24;

export class InvalidWebhookError extends DomainValidationError {
  readonly code = 'WEBHOOKS.INVALID';
}

export class WebhookLimitReachedError extends DomainError {
  readonly code = 'WEBHOOKS.LIMIT_REACHED';
  readonly kind = 'conflict' as const;
  constructor(limit: number) {
    super(`At most ${limit} webhook endpoints are allowed here: delete one first`);
  }
}

export class WebhookNotFoundError extends DomainError {
  readonly code = 'WEBHOOKS.NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('No such webhook endpoint');
  }
}

/** What a registration or a change may say; absent fields are left as they are. */
export interface WebhookRequest {
  readonly url?: string;
  /** null: every event. */
  readonly events?: readonly string[] | null;
  readonly description?: string;
}

export interface ValidWebhookRequest {
  readonly url?: string;
  readonly events?: readonly NotificationEvent[] | null;
  readonly description?: string;
}

/**
 * The request checked field by field: the URL by webhookUrlProblem (stored in its normal
 * form), the events known and each named once, the description one short line.
 * @param privateHosts the hosts the operator allows on their own network (OUTBOUND_PRIVATE_HOSTS).
 * @throws InvalidWebhookError naming the field at fault.
 */
export function validateWebhookRequest(request: WebhookRequest, privateHosts: ReadonlySet<string>): ValidWebhookRequest {
  const valid: { url?: string; events?: readonly NotificationEvent[] | null; description?: string } = {};
  if (request.url !== undefined) {
    const problem = webhookUrlProblem(request.url, privateHosts);
    if (problem) throw new InvalidWebhookError('url', problem);
    valid.url = new URL(request.url).href;
  }
  if (request.events !== undefined) valid.events = request.events === null ? null : knownEvents(request.events);
  if (request.description !== undefined) {
    const description = request.description.trim();
    if (description.length > WEBHOOK_LIMITS.descriptionLength) {
      throw new InvalidWebhookError('description', `description must be at most ${WEBHOOK_LIMITS.descriptionLength} characters`);
    }
    const problem = labelProblem(description);
    if (problem) throw new InvalidWebhookError('description', `description ${problem}`);
    valid.description = description;
  }
  return valid;
}

function knownEvents(events: readonly string[]): NotificationEvent[] {
  if (events.length === 0) {
    throw new InvalidWebhookError('events', 'events must name at least one event, or be left out (or null) for every event');
  }
  const unknown = events.filter((event) => !(NOTIFICATION_EVENTS as readonly string[]).includes(event));
  if (unknown.length > 0) {
    throw new InvalidWebhookError(
      'events',
      `events holds unknown events: ${unknown.slice(0, 5).join(', ')} (known: ${NOTIFICATION_EVENTS.join(', ')})`,
    );
  }
  if (new Set(events).size !== events.length) throw new InvalidWebhookError('events', 'events must name each event once');
  return events as NotificationEvent[];
}

/** Whether `event` is one the endpoint receives. */
export function receives(endpoint: Pick<WebhookEndpoint, 'events'>, event: string): boolean {
  return endpoint.events === null || (endpoint.events as readonly string[]).includes(event);
}
