import { Logger } from '@nestjs/common';
import { PassThrough, pipeline, type Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type Mail from 'nodemailer/lib/mailer';
import type { SMTPSentMessageInfo } from 'nodemailer/lib/smtp-transport';
import type { ChannelCall, ChannelLookup, OutgoingEmail } from '../../../application/outreach/ports/channels.port';
import { EmailChannel } from './email-channel';
import { ChannelError } from '../../../domain/outreach/channel-errors';
import { emailAddress } from '../../../domain/shared/email-address';

/** What this adapter knows it handed to the SMTP server, by idempotency key. */
export interface EmailDeliveryLog {
  find(idempotencyKey: string): Promise<{ messageId: string } | null>;
  /** Records an accepted delivery; a second record of the same key keeps the first. */
  record(idempotencyKey: string, delivery: { messageId: string; response: string }): Promise<void>;
}

const logger = new Logger('SmtpEmailChannel');

/** atext and "." (RFC 5322 id-left), plus ":", so the key can be the left part of a Message-ID as is. */
const MESSAGE_ID_KEY = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.:-]+$/;
const DOMAIN = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;
const RATE_LIMIT_REPLY = /rate|too many|too fast|too quickly|throttl|limit/i;
/** Nodemailer codes of failures that happen before MAIL FROM: nothing of the message left. */
const BEFORE_ENVELOPE = new Set(['EDNS', 'ETLS', 'EAUTH', 'ENOAUTH', 'EOAUTH2', 'ECONFIG', 'EPROXY', 'EREQUIRETLS']);
/** Nodemailer codes of a message refused before it was sent: bad addresses, too many recipients, too large. */
const REFUSED_MESSAGE = new Set(['EENVELOPE', 'EMESSAGE', 'EMAXRECIPIENTS']);

/** Whether the server has started to receive the message body (it answered DATA with 354). */
interface SendProgress {
  bodyStarted: boolean;
}

/**
 * Email over SMTP with nodemailer. The Message-ID is derived from the idempotency key, so a
 * receiving side can drop a duplicate too. Each mail carries `List-Unsubscribe` (the footer's
 * link) and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. A failure is `performed: 'no'` only when the server
 * cannot have the message: it answered with a 4xx/5xx reply, or the session ended before the
 * body was sent; a connection lost once the body was on its way is `'maybe'`.
 */
export class SmtpEmailChannel extends EmailChannel {
  readonly name = 'smtp';
  private readonly transport: Mail<SMTPSentMessageInfo>;
  private readonly from: string;
  private readonly messageIdDomain: string;
  /** Keyed by the signal each send creates for itself, the one object nodemailer hands its plugins unchanged. */
  private readonly progress = new WeakMap<AbortSignal, SendProgress>();

  constructor(
    options: { url: string; from: string; messageIdDomain: string },
    private readonly deliveries: EmailDeliveryLog,
  ) {
    super();
    if (!DOMAIN.test(options.messageIdDomain)) throw new Error('messageIdDomain must be a domain name, such as mail.example.com');
    this.from = options.from;
    this.messageIdDomain = options.messageIdDomain;
    this.transport = nodemailer.createTransport(options.url);
    this.transport.use('stream', (mail, done) => {
      const progress = mail.data.signal ? this.progress.get(mail.data.signal) : undefined;
      if (progress) mail.message.processFunc((input) => watchBody(input, progress));
      done();
    });
  }

  async send(input: ChannelCall & OutgoingEmail): Promise<{ messageId: string }> {
    if (input.signal.aborted) throw new ChannelError('TIMEOUT', 'The deadline passed before the mail was sent', 'no');
    const known = await this.deliveries.find(input.idempotencyKey);
    if (known) return { messageId: known.messageId };

    const messageId = this.messageIdOf(input.idempotencyKey);
    assertCheckedRecipient(input.to);
    const signal = AbortSignal.any([input.signal]);
    const progress: SendProgress = { bodyStarted: false };
    this.progress.set(signal, progress);
    let info: SMTPSentMessageInfo;
    try {
      info = await this.transport.sendMail({
        from: this.from,
        to: input.to,
        subject: input.subject,
        text: input.body,
        messageId,
        // RFC 2369 and RFC 8058: mail clients offer "Unsubscribe", and one click POSTs
        // `List-Unsubscribe=One-Click` to the link (the footer's), which Bridle serves.
        list: { unsubscribe: input.unsubscribeUrl },
        headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        signal,
      });
    } catch (error) {
      throw toChannelError(error, progress.bodyStarted);
    }
    // With one recipient, a refused recipient means the server took the message for nobody.
    if (info.rejected.length > 0) {
      throw new ChannelError('REJECTED', `The SMTP server refused the recipient (${reply(info.rejectedErrors?.[0])})`, 'no');
    }
    try {
      await this.deliveries.record(input.idempotencyKey, { messageId, response: info.response });
    } catch (error) {
      // The mail is out: failing the call would invite a second one. Only find() loses it.
      logger.warn(`Sent ${messageId} but could not record it: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { messageId };
  }

  /**
   * The log holds what the server accepted. No entry cannot prove that nothing went out (the
   * reply to a sent body may have been lost), so it is 'unknowable', never "not sent".
   */
  async find(idempotencyKey: string): Promise<ChannelLookup> {
    const known = await this.deliveries.find(idempotencyKey);
    return known ? { kind: 'message', messageId: known.messageId } : 'unknowable';
  }

  /** Call once, at shutdown; a send in flight finishes on its own connection. */
  override close(): void {
    this.transport.close();
  }

  private messageIdOf(idempotencyKey: string): string {
    if (!MESSAGE_ID_KEY.test(idempotencyKey)) {
      throw new Error(`The idempotency key ${JSON.stringify(idempotencyKey)} cannot be the left part of a Message-ID`);
    }
    return `<${idempotencyKey}@${this.messageIdDomain}>`;
  }
}

/**
 * Passes the message through, noting when the connection starts to read it: nodemailer pipes
 * the message into the socket only once the server answered DATA with 354 (its pool uses the
 * same `readableDidRead` test to decide that no byte of a message was sent).
 */
function watchBody(input: Readable, progress: SendProgress): Readable {
  const output = pipeline(input, new PassThrough(), () => undefined);
  output.once('resume', () => {
    progress.bodyStarted = true;
  });
  return output;
}

/**
 * The recipient goes out as the string the policy and the do-not-contact list were checked
 * against: one address in canonical form (src/domain/shared/email-address.ts), its domain in
 * DNS form, so nodemailer has no IDNA of its own to apply, and one that nodemailer's parser
 * reads back unchanged (no comment, group or second address in it).
 */
function assertCheckedRecipient(to: string): void {
  const addresses = addressparser(to, { flatten: true });
  if (emailAddress(to)?.address !== to || addresses.length !== 1 || addresses[0].address !== to) {
    throw new ChannelError('REJECTED', 'The recipient must be exactly one email address, in canonical form', 'no');
  }
}

function toChannelError(error: unknown, bodyStarted: boolean): ChannelError {
  const failure = (error ?? {}) as NodemailerError;
  const options = { cause: error };
  const code = failure.code ?? '';
  const responseCode = failure.responseCode ?? 0;
  if (code === 'EABORT') {
    return new ChannelError('TIMEOUT', 'The deadline passed while the mail was being sent', bodyStarted ? 'maybe' : 'no', options);
  }
  // An authentication reply can name the account: leave the reply out of the message.
  if (code === 'EAUTH' || code === 'ENOAUTH' || code === 'EOAUTH2') {
    return new ChannelError('UNAVAILABLE', `The SMTP server did not accept the login (${responseCode || code})`, 'no', options);
  }
  // A 4xx or 5xx reply: the server says it did not take the message, whatever the phase.
  if (responseCode >= 400 && responseCode < 500) {
    const text = failure.response ?? '';
    const rateLimited = RATE_LIMIT_REPLY.test(text);
    return new ChannelError(
      rateLimited ? 'RATE_LIMITED' : 'UNAVAILABLE',
      `The SMTP server deferred the mail (${reply(failure)})`,
      'no',
      options,
    );
  }
  if (responseCode >= 500 && responseCode < 600) {
    const refusedMessage = failure.permanent !== false && ['MAIL FROM', 'RCPT TO', 'DATA'].includes(failure.command ?? '');
    return refusedMessage
      ? new ChannelError('REJECTED', `The SMTP server rejected the mail (${reply(failure)})`, 'no', options)
      : new ChannelError('UNAVAILABLE', `The SMTP server refused the session (${reply(failure)})`, 'no', options);
  }
  if (BEFORE_ENVELOPE.has(code)) {
    return new ChannelError('UNAVAILABLE', `Could not open an SMTP session (${code}${originalCode(failure)})`, 'no', options);
  }
  if (REFUSED_MESSAGE.has(code)) {
    return new ChannelError('REJECTED', `The mail cannot be sent (${code}: ${failure.message})`, 'no', options);
  }
  // A lost connection, a timeout, a garbled reply: only the phase tells whether the server has the mail.
  const performed = bodyStarted ? 'maybe' : 'no';
  const when = bodyStarted ? 'once the message was on its way' : 'before the message was sent';
  return new ChannelError(
    'UNAVAILABLE',
    `The SMTP session failed ${when} (${code || 'unknown error'}${originalCode(failure)})`,
    performed,
    options,
  );
}

function reply(failure: NodemailerError | undefined): string {
  if (!failure) return 'no reply';
  return failure.response ?? String(failure.responseCode ?? failure.code ?? 'no reply');
}

function originalCode(failure: NodemailerError): string {
  return failure.originalCode ? ` ${failure.originalCode}` : '';
}
