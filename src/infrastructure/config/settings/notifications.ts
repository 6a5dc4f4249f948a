import { pattern, wholeNumber } from './rules';
import { type Setting } from './setting';

/** Notifications by email (docs/notifications.md). They go through the outreach SMTP server, `SMTP_URL`; unset, they are off. */
export const NOTIFICATION_SETTINGS = {
  NOTIFY_EMAIL_FROM: {
    section: 'Notifications',
    // One address, with or without a display name, so that its domain can name the Message-IDs.
    ...pattern(/^[^\r\n]*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*>?$/, 'must be an address such as Bridle <notify@example.com>', 'an address'),
    defaultText: '`SMTP_FROM`',
    doc: 'the sender of notification mail (a draft to review, a question waiting, a campaign finished…), which is the deployment’s own transactional mail, not outreach: no `List-Unsubscribe`, and `Auto-Submitted: auto-generated`. Unset, `SMTP_FROM`, which the SMTP server already accepts. Its domain names the `Message-ID`s',
  },
  NOTIFY_EMAIL_INTERVAL_MINUTES: {
    section: 'Notifications',
    ...wholeNumber(0, 1440),
    default: '15',
    doc: 'at most one notification mail per person in this many minutes: the first notification after a quiet period goes at once, later ones wait and go together as one digest when the period ends. `0`: each poll mails what waits',
  },
  NOTIFY_POLL_MS: {
    section: 'Notifications',
    ...wholeNumber(100, 60_000),
    default: '1000',
    doc: 'how often each process (server or worker) looks for notifications to mail, when `SMTP_URL` is set: one indexed read when nothing waits. A notification waits at most about this long, then the SMTP round trip',
  },
} as const satisfies Record<string, Setting>;
