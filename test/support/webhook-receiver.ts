import type { IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { type FixtureAnswer, type HttpsFixture, startHttpsFixture } from './https-fixture';

/** One delivery as the receiver got it. */
export interface ReceivedWebhook {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly body: string;
  readonly type: string;
  readonly data: { readonly notificationId: string; readonly [field: string]: unknown };
}

/** What a receiver's path answers now: a status, after `hold()` settles when given (called once per request), with headers. */
export interface ReceiverMode {
  readonly status: number;
  readonly hold?: () => Promise<unknown>;
  readonly headers?: Record<string, string>;
}

export interface WebhookReceiver {
  readonly fixture: HttpsFixture;
  /** `https://<name>:<port><path>`. */
  url(name: string, path?: string): string;
  /** What `<name><path>` answers from now on (200 until set). */
  answer(name: string, path: string, mode: ReceiverMode): void;
  /** Every request to `<name><path>` whose whole body arrived, answered or not, in arrival order. */
  received(name: string, path?: string): ReceivedWebhook[];
  /** Those it answered 2xx, the answer sent while the sender still listened: what the receiver accepted. */
  accepted(name: string, path?: string): ReceivedWebhook[];
  /** Each accepted webhook-id once, in the order first accepted: what a receiver that drops repeats keeps. */
  deduplicated(name: string, path?: string): string[];
  /** Verifies every accepted request with the standardwebhooks package under `secret`; throws on the first that fails. */
  verifyAll(name: string, secret: string, path?: string): void;
  close(): Promise<void>;
}

const DEFAULT_PATH = '/hook';

/** One request: its webhook once its body is read, the status it was given, and whether the answer went out. */
interface Logged {
  webhook: ReceivedWebhook | undefined;
  readonly status: number;
  answered: boolean;
}

/**
 * A webhook receiver on the local HTTPS fixture (its names resolved to 127.0.0.1 by the test's
 * resolver): each path records what it got, headers and the raw body, and answers as set.
 */
export async function startWebhookReceiver(names: readonly string[]): Promise<WebhookReceiver> {
  const fixture = await startHttpsFixture(names);
  const modes = new Map<string, ReceiverMode>();
  const log = new Map<string, Logged[]>();
  const key = (name: string, path: string) => `${name}${path}`;

  const handler =
    (name: string, path: string) =>
    (request: IncomingMessage): FixtureAnswer => {
      const mode = modes.get(key(name, path)) ?? { status: 200 };
      const entry: Logged = { webhook: undefined, status: mode.status, answered: false };
      const entries = log.get(key(name, path)) ?? [];
      entries.push(entry);
      log.set(key(name, path), entries);
      const body = new Promise<void>((resolve) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const parsed = JSON.parse(text) as Pick<ReceivedWebhook, 'type' | 'data'>;
          const header = (field: string) => String(request.headers[field] ?? '');
          entry.webhook = {
            id: header('webhook-id'),
            timestamp: header('webhook-timestamp'),
            signature: header('webhook-signature'),
            body: text,
            type: parsed.type,
            data: parsed.data,
          };
          resolve();
        });
      });
      // Answered once the hold is over, if the sender is still there to read it.
      const answered = Promise.all([body, mode.hold?.()]).then(() => (entry.answered = !request.socket.destroyed));
      return { status: mode.status, headers: mode.headers, holdUntil: answered };
    };

  const served = new Set<string>();
  const serve = (name: string, path: string) => {
    if (served.has(key(name, path))) return;
    served.add(key(name, path));
    fixture.serve(name, path, handler(name, path));
  };
  for (const name of names) serve(name, DEFAULT_PATH);

  const whole = (name: string, path: string) => (log.get(key(name, path)) ?? []).filter((entry) => entry.webhook !== undefined);
  const accepted = (name: string, path = DEFAULT_PATH) =>
    whole(name, path)
      .filter((entry) => entry.answered && entry.status >= 200 && entry.status < 300)
      .map((entry) => entry.webhook!);
  return {
    fixture,
    url: (name, path = DEFAULT_PATH) => {
      serve(name, path);
      return fixture.url(name, path);
    },
    answer: (name, path, mode) => {
      serve(name, path);
      modes.set(key(name, path), mode);
    },
    received: (name, path = DEFAULT_PATH) => whole(name, path).map((entry) => entry.webhook!),
    accepted,
    deduplicated: (name, path = DEFAULT_PATH) => [...new Set(accepted(name, path).map((webhook) => webhook.id))],
    verifyAll: (name, secret, path = DEFAULT_PATH) => {
      for (const webhook of accepted(name, path)) {
        new Webhook(secret).verify(webhook.body, {
          'webhook-id': webhook.id,
          'webhook-timestamp': webhook.timestamp,
          'webhook-signature': webhook.signature,
        });
      }
    },
    close: () => fixture.close(),
  };
}

/** Waits until `check` holds, looking every 50 ms; fails naming `what` when it still does not after `withinMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
