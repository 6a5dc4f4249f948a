import nodemailer from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type Mail from 'nodemailer/lib/mailer';
import type { SMTPSentMessageInfo } from 'nodemailer/lib/smtp-transport';
import {
  NotificationMailer,
  NotificationMailError,
  type OutgoingNotificationMail,
} from '../../application/notifications/ports/notification-mailer.port';

/** An SMTP round trip that takes longer is given up (and tried again later, under the same Message-ID). */
const SEND_DEADLINE_MS = 60_000;
const DOMAIN = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;
const MESSAGE_ID_KEY = /^[A-Za-z0-9.:-]+$/;

/** The domain of `from` (`Bridle <notify@example.com>` → example.com), to name the Message-IDs with. */
export function senderDomain(from: string): string {
  // eslint-disable-next-line regexp/no-super-linear-move -- the operator's setting, read once at start
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? '';
  if (!DOMAIN.test(domain)) throw new Error('NOTIFY_EMAIL_FROM (or SMTP_FROM) must end in an address whose domain is a plain host name');
  return domain;
}

/**
 * Notification mail over SMTP with nodemailer: the deployment's own transactional mail to the
 * people who use it, apart from outreach (no List-Unsubscribe; `Auto-Submitted:
 * auto-generated`, RFC 3834, so that auto-responders stay quiet). Plain text and HTML. The
 * Message-ID is made of the mail's key, so a mail sent again after a crash carries the same
 * one. A failure is a NotificationMailError naming the SMTP code only: a server's reply may
 * name the account or echo the message.
 */
export class SmtpNotificationMailer extends NotificationMailer {
  private readonly transport: Mail<SMTPSentMessageInfo>;
  private readonly domain: string;

  constructor(options: { url: string; from: string }) {
    super();
    this.domain = senderDomain(options.from);
    this.transport = nodemailer.createTransport(options.url, { from: options.from });
  }

  async send(mail: OutgoingNotificationMail): Promise<void> {
    if (!MESSAGE_ID_KEY.test(mail.messageKey)) throw new Error('a notification mail key must be fit for a Message-ID');
    let info: SMTPSentMessageInfo;
    try {
      info = await this.transport.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.messageKey}@${this.domain}>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
        signal: AbortSignal.timeout(SEND_DEADLINE_MS),
      });
    } catch (error) {
      const failure = (error ?? {}) as NodemailerError;
      const code = [failure.code, failure.responseCode].filter((part) => part !== undefined && part !== '').join(' ');
      throw new NotificationMailError(`The SMTP server did not take the mail (${code || 'unknown error'})`, { cause: error });
    }
    if (info.rejected.length > 0) {
      throw new NotificationMailError(`The SMTP server refused the recipient (${info.rejectedErrors?.[0]?.responseCode ?? 'no code'})`);
    }
  }

  /** Call once, at shutdown. */
  close(): void {
    this.transport.close();
  }
}
