import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  headers: Map<string, string>;
  messageId: string | undefined;
  /** The body as it came over the wire (quoted-printable, if the client encoded it so). */
  body: string;
  /** The body's text (of a multipart mail, its text/plain part): quoted-printable decoded when the mail says it is. */
  text: string;
  /** A multipart mail's text/html part, decoded; null for a mail of one part. */
  html: string | null;
}

type Handlers = Pick<SMTPServerOptions, 'onMailFrom' | 'onRcptTo' | 'onData'>;

/** A real smtp-server on a free port; tests swap its handlers, it keeps what it accepted. */
export class SmtpTestServer {
  readonly received: ReceivedMail[] = [];
  private handlers: Handlers = {};
  private readonly server: SMTPServer;

  private constructor(options: SMTPServerOptions) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      closeTimeout: 100,
      onMailFrom: (address, session, callback) => (this.handlers.onMailFrom ?? ((_a, _s, cb) => cb()))(address, session, callback),
      onRcptTo: (address, session, callback) => (this.handlers.onRcptTo ?? ((_a, _s, cb) => cb()))(address, session, callback),
      onData: (stream, session, callback) => {
        if (this.handlers.onData) return this.handlers.onData(stream, session, callback);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const envelope = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          };
          this.received.push({ envelope, ...parseMessage(Buffer.concat(chunks).toString('utf8')) });
          callback(null, 'Message queued as 42');
        });
      },
      ...options,
    });
  }

  static async start(options: SMTPServerOptions = {}): Promise<SmtpTestServer> {
    const started = new SmtpTestServer(options);
    await new Promise<void>((resolve) => started.server.listen(0, '127.0.0.1', resolve));
    return started;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** The outreach mail it received (each carries List-Unsubscribe), without Bridle's notifications to its own people. */
  get outreach(): ReceivedMail[] {
    return this.received.filter((mail) => mail.headers.has('list-unsubscribe'));
  }

  /** The notification mail it received (Auto-Submitted: auto-generated), to `to` when given. */
  notifications(to?: string): ReceivedMail[] {
    return this.received.filter(
      (mail) => mail.headers.get('auto-submitted') === 'auto-generated' && (to === undefined || mail.envelope.to.includes(to)),
    );
  }

  use(handlers: Handlers): void {
    this.handlers = handlers;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Unfolds the header block and keeps the body as sent; of a multipart mail, reads its text/plain and text/html parts. */
export function parseMessage(raw: string): Omit<ReceivedMail, 'envelope'> {
  const { headers, body } = headersAndBody(raw);
  const boundary = /^multipart\/[a-z]+;.*boundary="?([^";]+)"?/i.exec(headers.get('content-type') ?? '')?.[1];
  if (boundary === undefined) return { headers, messageId: headers.get('message-id'), body, text: decoded(headers, body), html: null };
  const parts = body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => headersAndBody(part.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  const part = (type: string) => parts.find((candidate) => candidate.headers.get('content-type')?.startsWith(type));
  const plain = part('text/plain');
  const html = part('text/html');
  return {
    headers,
    messageId: headers.get('message-id'),
    body,
    text: plain ? decoded(plain.headers, plain.body) : '',
    html: html ? decoded(html.headers, html.body) : null,
  };
}

function headersAndBody(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(split + 4).replace(/\r\n$/, '') };
}

function decoded(headers: Map<string, string>, body: string): string {
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  if (encoding === 'quoted-printable') return quotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** RFC 2045 quoted-printable, decoded as UTF-8: soft line breaks joined, `=XX` turned back into bytes. */
function quotedPrintable(encoded: string): string {
  const joined = encoded.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}
