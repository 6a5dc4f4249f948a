import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  headers: Map<string, string>;
  messageId: string | undefined;
  /** The body as it came over the wire (quoted-printable, if the client encoded it so). */
  body: string;
  /** The body's text: quoted-printable decoded when the mail says it is. */
  text: string;
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

  use(handlers: Handlers): void {
    this.handlers = handlers;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Unfolds the header block and keeps the body as sent: enough for a short plain-text mail. */
export function parseMessage(raw: string): Omit<ReceivedMail, 'envelope'> {
  const split = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = raw.slice(split + 4).replace(/\r\n$/, '');
  const text = headers.get('content-transfer-encoding')?.toLowerCase() === 'quoted-printable' ? quotedPrintable(body) : body;
  return { headers, messageId: headers.get('message-id'), body, text };
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
