import type { NotificationMail } from '../../../domain/notifications/notification-mail';

/** A notification mail to one person, and the key its Message-ID is made of (the same on a retry). */
export interface OutgoingNotificationMail extends NotificationMail {
  readonly to: string;
  readonly messageKey: string;
}

/** The SMTP server has not taken the mail (or may not have); its message names no address, password or body. */
export class NotificationMailError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NotificationMailError';
  }
}

/** How notification mail leaves Bridle: the deployment's own transactional mail. */
export abstract class NotificationMailer {
  /** @throws NotificationMailError when the server did not accept it. */
  abstract send(mail: OutgoingNotificationMail): Promise<void>;
}
