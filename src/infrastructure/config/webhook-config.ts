import type { RetryPolicy } from '../../domain/webhooks/webhook-delivery';
import type { SettingValues } from './settings';

/** WEBHOOK_*: endpoints per owner, and how messages are delivered and retried (docs/webhooks.md). */
export interface WebhookConfig {
  readonly endpointsPerOwner: number;
  readonly pollMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly retry: RetryPolicy;
  readonly retentionDays: number;
}

export function webhookConfig(values: SettingValues): WebhookConfig {
  return {
    endpointsPerOwner: values.WEBHOOK_ENDPOINTS_PER_USER,
    pollMs: values.WEBHOOK_POLL_MS,
    timeoutMs: values.WEBHOOK_TIMEOUT_MS,
    concurrency: values.WEBHOOK_CONCURRENCY,
    retry: { delaysMs: values.WEBHOOK_RETRY_DELAYS_MS, windowMs: values.WEBHOOK_RETRY_WINDOW_MS },
    retentionDays: values.WEBHOOK_DELIVERY_RETENTION_DAYS,
  };
}
