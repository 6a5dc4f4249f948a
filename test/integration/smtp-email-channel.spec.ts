import { Logger } from '@nestjs/common';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ChannelError } from '../../src/domain/outreach/channel-errors';
import { type EmailDeliveryLog, SmtpEmailChannel } from '../../src/infrastructure/outreach/email/smtp-email-channel';
import { SmtpTestServer } from '../support/smtp-test-server';

const FROM = 'Bridle <outreach@bridle.test>';
const DOMAIN = 'mail.bridle.test';
const PASSWORD = 's3cret-smtp-pass';
const UNSUBSCRIBE_URL = 'https://bridle.example/unsubscribe/dW5zdWJzY3JpYmU.c2lnbmF0dXJl';

class InMemoryEmailDeliveryLog implements EmailDeliveryLog {
  readonly deliveries = new Map<string, { messageId: string; response: string }>();

  find(idempotencyKey: string): Promise<{ messageId: string } | null> {
    return Promise.resolve(this.deliveries.get(idempotencyKey) ?? null);
  }

  record(idempotencyKey: string, delivery: { messageId: string; response: string }): Promise<void> {
    if (!this.deliveries.has(idempotencyKey)) this.deliveries.set(idempotencyKey, delivery);
    return Promise.resolve();
  }
}

function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * A scripted SMTP server without PIPELINING that drops the connection at MAIL FROM, or once
 * the whole message body arrived and before it answers it.
 */
async function startDroppingServer(dropAt: 'MAIL FROM' | 'end of body'): Promise<{ url: string; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write('220 dropping.test ESMTP\r\n');
    let body: string | null = null;
    socket.on('data', (chunk: Buffer) => {
      if (body !== null) {
        body += chunk.toString('utf8');
        if (body.endsWith('\r\n.\r\n')) socket.destroy();
        return;
      }
      for (const line of chunk.toString('utf8').split('\r\n').filter(Boolean)) {
        const verb = line.split(/[ :]/)[0].toUpperCase();
        if (verb === 'EHLO') socket.write('250-dropping.test\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL' && dropAt === 'MAIL FROM') socket.destroy();
        else if (verb === 'DATA') {
          body = '';
          socket.write('354 Go ahead\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `smtp://127.0.0.1:${port}`;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function failureOf(promise: Promise<unknown>): Promise<ChannelError> {
  const failure = await promise.then(
    () => {
      throw new Error('expected the send to fail');
    },
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ChannelError);
  return failure as ChannelError;
}

describe(SmtpEmailChannel.name, () => {
  let smtp: SmtpTestServer;
  let log: InMemoryEmailDeliveryLog;
  let sut: SmtpEmailChannel;
  const channels: SmtpEmailChannel[] = [];
  const servers: Server[] = [];

  function channel(url: string, deliveries: EmailDeliveryLog = log): SmtpEmailChannel {
    const created = new SmtpEmailChannel({ url, from: FROM, messageIdDomain: DOMAIN }, deliveries);
    channels.push(created);
    return created;
  }

  function mail(idempotencyKey: string, signal = new AbortController().signal) {
    return {
      idempotencyKey,
      to: 'ada@example.com',
      subject: 'Quick question',
      body: 'Hello Ada,\r\nhow are you?',
      unsubscribeUrl: UNSUBSCRIBE_URL,
      signal,
    };
  }

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });

  beforeEach(() => {
    smtp.use({});
    smtp.received.length = 0;
    log = new InMemoryEmailDeliveryLog();
    sut = channel(smtp.url);
  });

  afterAll(async () => {
    channels.forEach((created) => created.close());
    await smtp?.stop();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('delivers a plain-text mail whose Message-ID is derived from the idempotency key', async () => {
    await expect(sut.find('lead-1.email.1')).resolves.toBe('unknowable');

    await expect(sut.send(mail('lead-1.email.1'))).resolves.toEqual({ messageId: `<lead-1.email.1@${DOMAIN}>` });

    expect(smtp.received).toHaveLength(1);
    const [received] = smtp.received;
    expect(received.envelope).toEqual({ from: 'outreach@bridle.test', to: ['ada@example.com'] });
    expect(received.messageId).toBe(`<lead-1.email.1@${DOMAIN}>`);
    expect(received.headers.get('from')).toBe(FROM);
    expect(received.headers.get('to')).toBe('ada@example.com');
    expect(received.headers.get('subject')).toBe('Quick question');
    expect(received.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(received.body).toBe('Hello Ada,\r\nhow are you?');
    // RFC 2369 and RFC 8058: the link (the one in the footer) and the one-click POST.
    expect(received.headers.get('list-unsubscribe')).toBe(`<${UNSUBSCRIBE_URL}>`);
    expect(received.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    await expect(sut.find('lead-1.email.1')).resolves.toEqual({ kind: 'message', messageId: `<lead-1.email.1@${DOMAIN}>` });
    expect(log.deliveries.get('lead-1.email.1')?.response).toContain('Message queued as 42');
  });

  it('keeps a long unsubscribe link whole, in the header and in a body that needs quoted-printable', async () => {
    const url = `https://bridle.example/outreach/unsubscribe/${'a'.repeat(300)}.${'b'.repeat(43)}`;
    const body = `Hello Ada, ${'é'.repeat(10)}\n\n-- \nTo get no more emails from this sender, unsubscribe here:\n${url}\n`;

    await sut.send({ ...mail('lead-1.email.2'), body, unsubscribeUrl: url });

    const [received] = smtp.received;
    expect(received.headers.get('content-transfer-encoding')).toBe('quoted-printable');
    expect(received.headers.get('list-unsubscribe')).toBe(`<${url}>`);
    // The server's copy lost its last line break only.
    expect(received.text.replace(/\r\n/g, '\n')).toBe(body.replace(/\n$/, ''));
  });

  it('sends once per key: a second send reaches no server and returns the first id', async () => {
    const first = await sut.send(mail('lead-2.email.1'));
    const second = await sut.send({ ...mail('lead-2.email.1'), subject: 'Another subject' });
    const again = await channel(smtp.url).send(mail('lead-2.email.1'));

    expect(second).toEqual(first);
    expect(again).toEqual(first);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].headers.get('subject')).toBe('Quick question');
  });

  it('reports a refused recipient as REJECTED, not performed, and records nothing', async () => {
    smtp.use({ onRcptTo: (_address, _session, callback) => callback(smtpError(550, 'No such user here')) });

    const failure = await failureOf(sut.send(mail('lead-3.email.1')));

    expect(failure).toMatchObject({ code: 'REJECTED', performed: 'no', retryable: false });
    expect(failure.message).toContain('550');
    expect(smtp.received).toHaveLength(0);
    await expect(sut.find('lead-3.email.1')).resolves.toBe('unknowable');
  });

  it('reports a 451 as a retryable failure that did not happen, even when it answers the message body', async () => {
    smtp.use({ onMailFrom: (_address, _session, callback) => callback(smtpError(451, 'Local error in processing')) });
    const atMailFrom = await failureOf(sut.send(mail('lead-4.email.1')));
    expect(atMailFrom).toMatchObject({ code: 'UNAVAILABLE', performed: 'no', retryable: true });

    smtp.use({
      onData: (stream, _session, callback) => {
        stream.resume();
        stream.on('end', () => callback(smtpError(451, 'Try again later')));
      },
    });
    const afterBody = await failureOf(sut.send(mail('lead-4.email.1')));
    expect(afterBody).toMatchObject({ code: 'UNAVAILABLE', performed: 'no', retryable: true });
    await expect(sut.find('lead-4.email.1')).resolves.toBe('unknowable');
  });

  it('reads a 4xx about sending too fast as RATE_LIMITED', async () => {
    smtp.use({ onMailFrom: (_address, _session, callback) => callback(smtpError(450, 'Too many messages, slow down')) });
    await expect(failureOf(sut.send(mail('lead-5.email.1')))).resolves.toMatchObject({ code: 'RATE_LIMITED', performed: 'no' });
  });

  it('reports a server that is not listening as UNAVAILABLE, not performed', async () => {
    const failure = await failureOf(channel(await closedPortUrl()).send(mail('lead-6.email.1')));
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', performed: 'no', retryable: true });
  });

  it('tells a connection lost before the message from one lost after it', async () => {
    const early = await startDroppingServer('MAIL FROM');
    const late = await startDroppingServer('end of body');
    servers.push(early.server, late.server);

    await expect(failureOf(channel(early.url).send(mail('lead-7.email.1')))).resolves.toMatchObject({
      code: 'UNAVAILABLE',
      performed: 'no',
    });
    await expect(failureOf(channel(late.url).send(mail('lead-7.email.1')))).resolves.toMatchObject({
      code: 'UNAVAILABLE',
      performed: 'maybe',
    });
  });

  it('does not send with an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();

    const failure = await failureOf(sut.send(mail('lead-8.email.1', controller.signal)));

    expect(failure).toMatchObject({ code: 'TIMEOUT', performed: 'no' });
    expect(smtp.received).toHaveLength(0);
  });

  it('stops at the deadline: not performed before the body went out, maybe performed after', async () => {
    const atRecipient = deferred();
    smtp.use({ onRcptTo: () => atRecipient.resolve() });
    const beforeBody = new AbortController();
    const stalledEnvelope = sut.send(mail('lead-9.email.1', beforeBody.signal));
    await atRecipient.promise;
    beforeBody.abort();
    await expect(failureOf(stalledEnvelope)).resolves.toMatchObject({ code: 'TIMEOUT', performed: 'no' });

    const bodyReceived = deferred();
    smtp.use({
      onData: (stream) => {
        stream.resume();
        stream.on('end', () => bodyReceived.resolve());
      },
    });
    const afterBody = new AbortController();
    const stalledReply = sut.send(mail('lead-9.email.2', afterBody.signal));
    await bodyReceived.promise;
    afterBody.abort();
    await expect(failureOf(stalledReply)).resolves.toMatchObject({ code: 'TIMEOUT', performed: 'maybe' });
    // The server has the body but no reply came back: asked by key, the channel cannot say.
    await expect(sut.find('lead-9.email.2')).resolves.toBe('unknowable');
  });

  it('never puts the SMTP password in what it throws', async () => {
    const guarded = await SmtpTestServer.start({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth: (_auth, _session, callback) => callback(new Error('Invalid username or password')),
    });
    try {
      const url = guarded.url.replace('smtp://', `smtp://bridle:${PASSWORD}@`);
      const failure = await failureOf(channel(url).send(mail('lead-10.email.1')));

      expect(failure).toMatchObject({ code: 'UNAVAILABLE', performed: 'no' });
      const cause = failure.cause as Error;
      const thrown = JSON.stringify({ message: failure.message, stack: failure.stack, cause: { ...cause, message: cause.message } });
      expect(thrown).not.toContain(PASSWORD);
      expect(thrown).not.toContain(Buffer.from(`\0bridle\0${PASSWORD}`).toString('base64'));
    } finally {
      await guarded.stop();
    }
  });

  it('refuses a recipient that is not exactly one address without contacting the server', async () => {
    const failure = await failureOf(sut.send({ ...mail('lead-11.email.1'), to: 'ada@example.com, bob@example.com' }));
    expect(failure).toMatchObject({ code: 'REJECTED', performed: 'no' });
    expect(smtp.received).toHaveLength(0);
  });

  it('sends only the canonical address that was checked: a spelling nodemailer would map to another is refused unsent', async () => {
    // Each would reach a domain the checks never saw: nodemailer maps the dots and the Unicode itself.
    for (const to of ['a@bücher.de', 'b@mail.competitor\u3002com', 'c@Example.COM', 'Ada <ada@example.com>', 'a(x)@example.com']) {
      const failure = await failureOf(sut.send({ ...mail('lead-12.email.1'), to }));
      expect({ to, failure }).toMatchObject({ to, failure: { code: 'REJECTED', performed: 'no' } });
    }
    expect(smtp.received).toHaveLength(0);
  });

  it('still returns the id of a delivered mail when the delivery log cannot record it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const failingLog: EmailDeliveryLog = {
      find: () => Promise.resolve(null),
      record: () => Promise.reject(new Error('database is down')),
    };
    await expect(channel(smtp.url, failingLog).send(mail('lead-12.email.1'))).resolves.toEqual({
      messageId: `<lead-12.email.1@${DOMAIN}>`,
    });
    expect(smtp.received).toHaveLength(1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`<lead-12.email.1@${DOMAIN}>`));
    warn.mockRestore();
  });
});
