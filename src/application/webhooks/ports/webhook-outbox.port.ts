import type { NewNotification, NotificationEvent } from '../../../domain/notifications/notification';
import type { NotificationMessage } from '../../../domain/webhooks/webhook-delivery';

/** An endpoint one deliverer holds the lease of: nobody else delivers to it until the lease is released or runs out. */
export interface ClaimedEndpoint {
  readonly id: string;
  readonly ownerId: string | null;
  readonly url: string;
  readonly events: readonly NotificationEvent[] | null;
  readonly allPeople: boolean;
  /** The current secret first, then the one before the last rotation while it still signs. */
  readonly secrets: readonly string[];
  readonly leaseToken: string;
  /** The message being retried, if one is: its id, the attempts so far and when the first was. */
  readonly head: { readonly notificationId: string; readonly attempts: number; readonly firstAttemptAt: Date } | null;
}

/** The next message an endpoint owes its receiver, in the outbox's order. */
export interface PendingMessage extends NotificationMessage {
  /** Its place in the outbox's order, opaque: where the endpoint's cursor moves once it is finished. */
  readonly position: string;
}

/** How an attempt ended, and what happens to the endpoint and its head. */
export type AttemptOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retrying'; readonly nextAttemptAt: Date }
  /** The window closed: the message is passed over and the endpoint disabled, its owner told by `notice`. */
  | { readonly kind: 'failed'; readonly notice: NewNotification }
  /** 410 Gone: the endpoint is disabled and the message kept as its head, its owner told by `notice`. */
  | { readonly kind: 'gone'; readonly notice: NewNotification };

export interface AttemptRecord {
  readonly endpoint: ClaimedEndpoint;
  readonly message: PendingMessage;
  readonly messageId: string;
  /** 1 for the first attempt of this message. */
  readonly attempt: number;
  readonly firstAttemptAt: Date;
  readonly attemptedAt: Date;
  readonly durationMs: number;
  readonly status: number | null;
  readonly failure: string | null;
  readonly outcome: AttemptOutcome;
}

/**
 * The notifications outbox as webhook endpoints read it: each endpoint keeps its own cursor
 * and delivers its matching notifications one at a time, in order. A deliverer claims
 * endpoints under a lease (a conditional update), so any process can deliver and none
 * delivers to one endpoint while another does; one that dies holding a lease loses nothing:
 * the lease runs out and another sends the head again, under the same webhook-id.
 */
export abstract class WebhookOutbox {
  /**
   * Leases up to `limit` enabled endpoints whose next attempt is due and that have a message
   * waiting, until `now + leaseMs`. When none has, this is the one statement a poll costs.
   */
  abstract claim(limit: number, leaseMs: number, now: Date): Promise<ClaimedEndpoint[]>;
  /** The endpoint's next message, or null when it is up to date. */
  abstract head(endpoint: ClaimedEndpoint): Promise<PendingMessage | null>;
  /**
   * Writes the attempt to the delivery log and moves the endpoint on as its outcome says (a
   * notice in the same transaction), if the lease is still this deliverer's. A delivered
   * message renews the lease to `now + leaseMs`; any other outcome releases it.
   * @returns false when the lease was lost (another deliverer holds it): nothing was written.
   */
  abstract record(record: AttemptRecord, leaseMs: number, now: Date): Promise<boolean>;
  /** Gives the lease up, if it is still this deliverer's. */
  abstract release(endpoint: ClaimedEndpoint): Promise<void>;
  /** Deletes delivery log rows attempted before `before`, and each endpoint's past its newest `perEndpoint`. @returns how many. */
  abstract prune(before: Date, perEndpoint: number): Promise<number>;
}
