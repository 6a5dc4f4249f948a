import { z } from 'zod';
import { DEFAULT_RETRY_POLICY } from '../../../domain/webhooks/webhook-delivery';
import { wholeNumber, type Rule } from './rules';
import { type Setting } from './setting';

/** Comma-separated whole numbers of milliseconds, each from 100 to a day. */
function delays(): Rule<number[]> {
  return {
    schema: z.string().transform((raw, context) => {
      const entries = raw.split(',').map((entry) => entry.trim());
      const bad = entries.find((entry) => !/^\d+$/.test(entry) || Number(entry) < 100 || Number(entry) > 86_400_000);
      if (bad !== undefined || entries.length > 20) {
        context.addIssue({
          code: 'custom',
          message: `must be 1 to 20 comma-separated delays in ms from 100 to 86400000, got "${bad ?? raw}"`,
        });
        return z.NEVER;
      }
      return entries.map(Number);
    }),
    allowed: '1–20 comma-separated delays in ms, each 100–86 400 000',
  };
}

/** The Webhooks section of docs/configuration.md, in its order ([webhooks](webhooks.md)). */
export const WEBHOOK_SETTINGS = {
  WEBHOOK_ENDPOINTS_PER_USER: {
    section: 'Webhooks',
    ...wholeNumber(1, 1_000),
    default: '10',
    doc: 'webhook endpoints a person may register; the deployment (`/admin/webhooks`) may hold as many. Past it, 409 `WEBHOOKS.LIMIT_REACHED`',
  },
  WEBHOOK_POLL_MS: {
    section: 'Webhooks',
    ...wholeNumber(50, 60_000),
    default: '1000',
    doc: 'how often each process (server or worker) looks for webhook messages to deliver: one statement when none waits',
  },
  WEBHOOK_TIMEOUT_MS: {
    section: 'Webhooks',
    ...wholeNumber(100, 30_000),
    default: '5000',
    doc: "deadline of one delivery, resolving the name included; a slower receiver's attempt fails (`timeout`) and is retried",
  },
  WEBHOOK_CONCURRENCY: {
    section: 'Webhooks',
    ...wholeNumber(1, 100),
    default: '4',
    doc: 'endpoints each process delivers to at once, each in its own order; a slow endpoint holds one of them for at most `WEBHOOK_TIMEOUT_MS`',
  },
  WEBHOOK_RETRY_DELAYS_MS: {
    section: 'Webhooks',
    ...delays(),
    default: DEFAULT_RETRY_POLICY.delaysMs.join(','),
    doc: 'the wait after the 1st, 2nd… failed attempt of a message; the last one repeats (5 s, 30 s, 2 min, 10 min, 1 h, then every 3 h)',
  },
  WEBHOOK_RETRY_WINDOW_MS: {
    section: 'Webhooks',
    ...wholeNumber(1_000, 7 * 86_400_000),
    default: String(DEFAULT_RETRY_POLICY.windowMs),
    doc: 'how long after its first attempt a message is retried (24 h); one still failing then is marked failed and its endpoint disabled, its owner notified (`webhook.disabled`)',
  },
  WEBHOOK_DELIVERY_RETENTION_DAYS: {
    section: 'Webhooks',
    ...wholeNumber(1, 365),
    default: '30',
    doc: 'how long the delivery log keeps an attempt (and at most the newest 1 000 per endpoint); pruned hourly unless `RETENTION_LEGAL_HOLD`',
  },
} as const satisfies Record<string, Setting>;
