import type { MailItem } from '../../../domain/notifications/mail-items';

/** A person's mailbox, claimed by one deliverer until its lease ends or it settles. */
export interface ClaimedMailbox {
  readonly userId: string;
  /** The claim's own token: a settlement by a deliverer whose lease ran out changes nothing. */
  readonly token: string;
  /** Failed sends in a row so far, for the backoff. */
  readonly failures: number;
}

/** The mail a claimed mailbox sends: which notifications (recorded before sending), and what of them the person still wants. */
export interface Digest {
  readonly box: ClaimedMailbox;
  /** The person's address. */
  readonly to: string;
  /** The first and last notification the mail holds: with the person, they name its Message-ID, the same on a retry. */
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The notifications to mail, oldest first; empty when the person turned every one of them off meanwhile. */
  readonly items: readonly MailItem[];
}

/**
 * The email side of the notifications outbox (docs/notifications.md): what waits to be mailed
 * to whom, and each person's mailbox. Every step is safe on any number of replicas at once.
 */
export abstract class NotificationEmailOutbox {
  /**
   * One indexed read: whether a notification came in that no one has queued for its recipients
   * yet (`fresh`), and whether a mailbox with something waiting is due (`due`).
   */
  abstract look(now: Date): Promise<{ readonly fresh: boolean; readonly due: boolean }>;

  /**
   * Queues up to `limit` new notifications for their recipients (the person, or every admin),
   * leaving out those a recipient turned off, their own acts, and any older than a day. Each
   * notification once, whatever replicas do it at the same time. @returns how many it read.
   */
  abstract fanOut(now: Date, limit: number): Promise<number>;

  /** Claims up to `limit` mailboxes that are due and have something waiting, each until `now + leaseMs`. */
  abstract claim(now: Date, leaseMs: number, limit: number): Promise<ClaimedMailbox[]>;

  /**
   * The claimed mailbox's next mail: the one recorded earlier if a send failed or a deliverer
   * stopped mid-way, else up to `maxItems` of what waits, recorded now, before it is sent.
   * Null when the claim was lost, or nothing waits after all.
   */
  abstract digest(box: ClaimedMailbox, maxItems: number): Promise<Digest | null>;

  /**
   * Done with the digest: its notifications leave the queue, and the next mail may go
   * `intervalMs` after `sentAt` (null: nothing was sent, every item was turned off).
   */
  abstract settle(digest: Digest, now: Date, sentAt: Date | null, intervalMs: number): Promise<void>;

  /** The send failed: the same digest is tried again at `retryAt`. */
  abstract retryLater(box: ClaimedMailbox, retryAt: Date): Promise<void>;
}
