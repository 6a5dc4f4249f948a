import { consoleLink, type NotificationFacts, type NotificationSubject } from '../notifications/notification';

/**
 * When a failed message is tried again: `delaysMs[n - 1]` after its n-th failed attempt (the
 * last delay repeating), until `windowMs` after its first attempt, when it fails for good.
 */
export interface RetryPolicy {
  readonly delaysMs: readonly number[];
  readonly windowMs: number;
}

/** 5 s, 30 s, 2 min, 10 min, 1 h, then every 3 hours, for 24 hours. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  delaysMs: [5_000, 30_000, 120_000, 600_000, 3_600_000, 10_800_000],
  windowMs: 24 * 3_600_000,
};

export type AfterFailure = { readonly kind: 'retry'; readonly at: Date } | { readonly kind: 'exhausted' };

/**
 * What follows the `attempts`-th failed attempt (1 for the first) of a message first tried at
 * `firstAttemptAt`: the next attempt, never later than the window's end (so the last attempt
 * falls on it), or nothing more once the window has closed.
 */
export function afterFailedAttempt(policy: RetryPolicy, attempts: number, firstAttemptAt: Date, now: Date): AfterFailure {
  const closes = firstAttemptAt.getTime() + policy.windowMs;
  if (now.getTime() >= closes) return { kind: 'exhausted' };
  const delay = policy.delaysMs[Math.min(Math.max(attempts, 1), policy.delaysMs.length) - 1];
  return { kind: 'retry', at: new Date(Math.min(now.getTime() + delay, closes)) };
}

/**
 * How the receiver's answer counts: any 2xx delivers; 410 Gone says the endpoint is no more
 * (it is disabled at once, the message kept for when it is enabled again); anything else,
 * or no answer, is a failed attempt.
 */
export function answerOutcome(status: number): 'delivered' | 'gone' | 'failed' {
  if (status >= 200 && status < 300) return 'delivered';
  return status === 410 ? 'gone' : 'failed';
}

/** A notification as a webhook carries it. */
export interface NotificationMessage {
  readonly notificationId: string;
  readonly recipientId: string | null;
  readonly event: string;
  readonly subject: NotificationSubject;
  readonly facts: NotificationFacts;
  readonly createdAt: Date;
}

/**
 * The `webhook-id` of a notification: the same for every attempt and every endpoint, so a
 * receiver that has seen it drops a repeat.
 */
export function webhookMessageId(notificationId: string): string {
  return `msg_${notificationId}`;
}

/**
 * The body, as Standard Webhooks has it: `{type, timestamp, data}`, `timestamp` being when the
 * event happened (the header `webhook-timestamp` is when this attempt was signed). `data` is
 * the server's own record: the notification's id, recipient (null: the admins), subject and
 * facts, and the console's link to it; never a model's words, never a secret.
 * @param publicBaseUrl PUBLIC_BASE_URL without its trailing slash.
 */
export function webhookBody(message: NotificationMessage, publicBaseUrl: string): string {
  return JSON.stringify({
    type: message.event,
    timestamp: message.createdAt.toISOString(),
    data: {
      notificationId: message.notificationId,
      recipientId: message.recipientId,
      subject: message.subject,
      facts: message.facts,
      link: `${publicBaseUrl}/${consoleLink(message.subject)}`,
    },
  });
}
