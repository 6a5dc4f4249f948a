import { Injectable } from '@nestjs/common';
import { DIGEST_ITEMS_MAX, notificationMail } from '../../domain/notifications/notification-mail';
import { Clock } from '../shared/ports/clock.port';
import { Logger } from '../shared/ports/logger.port';
import { type ClaimedMailbox, NotificationEmailOutbox } from './ports/notification-email-outbox.port';
import { NotificationMailer } from './ports/notification-mailer.port';

/** What the deliverer needs of the configuration. A class, so that it is its own injection token. */
export class NotificationEmailSettings {
  constructor(
    /** PUBLIC_BASE_URL without a trailing slash: the start of every link in a mail. */
    readonly baseUrl: string,
    /** NOTIFY_EMAIL_INTERVAL_MINUTES, in ms. */
    readonly intervalMs: number,
  ) {}
}

/** Notifications queued for their recipients per statement. */
const FAN_OUT_BATCH = 500;
/** Mailboxes one claim takes; a run claims again while it gets a full batch, up to CLAIM_ROUNDS times. */
const CLAIM_BATCH = 20;
const CLAIM_ROUNDS = 10;
/** How long a claimed mailbox is the deliverer's: longer than an SMTP round trip may take (the mailer's own deadline is 60 s). */
export const MAILBOX_LEASE_MS = 120_000;
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 3_600_000;

/** When a mailbox whose send failed `failures` times in a row is tried again: 30 s, doubling, at most an hour. */
export function retryDelayMs(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, Math.min(failures - 1, 20)));
}

/**
 * One poll of email delivery (docs/notifications.md), run by every process at NOTIFY_POLL_MS:
 * queue what came in for its recipients, then mail each person whose quiet period is over
 * what waits for them, as one mail. The digest is recorded before it is sent and its
 * Message-ID is made of the person and the notifications it holds, so a deliverer that stops
 * between sending and settling makes the next one send the same mail under the same
 * Message-ID, which a receiving server may drop; nothing is lost, and a failed send is tried
 * again with a backoff.
 */
@Injectable()
export class DeliverNotificationEmailsUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly outbox: NotificationEmailOutbox,
    private readonly mailer: NotificationMailer,
    private readonly clock: Clock,
    private readonly settings: NotificationEmailSettings,
    logger: Logger,
  ) {
    this.logger = logger.withContext('Notifications');
  }

  async run(): Promise<void> {
    const { fresh, due } = await this.outbox.look(this.clock.now());
    if (fresh) while ((await this.outbox.fanOut(this.clock.now(), FAN_OUT_BATCH)) === FAN_OUT_BATCH);
    if (!fresh && !due) return;
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const claimed = await this.outbox.claim(this.clock.now(), MAILBOX_LEASE_MS, CLAIM_BATCH);
      for (const box of claimed) await this.deliver(box);
      if (claimed.length < CLAIM_BATCH) return;
    }
  }

  private async deliver(box: ClaimedMailbox): Promise<void> {
    const digest = await this.outbox.digest(box, DIGEST_ITEMS_MAX);
    if (!digest) return;
    const { intervalMs, baseUrl } = this.settings;
    if (digest.items.length === 0) {
      await this.outbox.settle(digest, this.clock.now(), null, intervalMs);
      return;
    }
    const mail = notificationMail(digest.items, baseUrl, this.clock.now());
    try {
      await this.mailer.send({ ...mail, to: digest.to, messageKey: `notify.${box.userId}.${digest.firstSeq}-${digest.lastSeq}` });
    } catch (error) {
      const failures = box.failures + 1;
      const retryAt = new Date(this.clock.now().getTime() + retryDelayMs(failures));
      // The mailer's message names no address, password or body; the person is named by id.
      this.logger.warn({
        msg: 'notification mail not sent; it is tried again later',
        userId: box.userId,
        failures,
        retryAt: retryAt.toISOString(),
        reason: error instanceof Error ? error.message : String(error),
      });
      await this.outbox.retryLater(box, retryAt);
      return;
    }
    const sentAt = this.clock.now();
    await this.outbox.settle(digest, sentAt, sentAt, intervalMs);
  }
}
