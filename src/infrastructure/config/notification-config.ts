import type { SettingValues } from './settings';

/** Notifications by email (docs/notifications.md), as AppConfig holds them. */
export interface NotificationConfig {
  /** Null when SMTP_URL is unset: email notifications are off. */
  readonly email: {
    readonly url: string;
    /** NOTIFY_EMAIL_FROM, else SMTP_FROM. */
    readonly from: string;
    /** NOTIFY_EMAIL_INTERVAL_MINUTES: at most one mail per person in this long. */
    readonly intervalMinutes: number;
  } | null;
  /** NOTIFY_POLL_MS: how often each process looks for notifications to mail. */
  readonly pollMs: number;
}

export function notificationConfig(values: SettingValues): NotificationConfig {
  const { SMTP_URL: url } = values;
  return {
    email:
      url === undefined
        ? null
        : { url, from: values.NOTIFY_EMAIL_FROM ?? values.SMTP_FROM, intervalMinutes: values.NOTIFY_EMAIL_INTERVAL_MINUTES },
    pollMs: values.NOTIFY_POLL_MS,
  };
}
