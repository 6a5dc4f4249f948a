import { type Setting } from './setting';
import { flag, wholeNumber } from './rules';

/** How long Bridle keeps what it records (docs/record-keeping.md, docs/decisions/0017-erasure-and-retention.md). */
export const RETENTION_SETTINGS = {
  AUDIT_RETENTION_DAYS: {
    section: 'Retention',
    ...wholeNumber(183, 36_500),
    default: '395',
    doc: 'audit rows (and decision logs) older than this are deleted, but only up to a signed checkpoint, whose row and every link and checkpoint stay, so the rest still verifies from it. At least 183 days (six months, EU AI Act Art. 19); the database itself refuses to delete a row younger than six months. Default: 13 months',
  },
  CONVERSATION_RETENTION_DAYS: {
    section: 'Retention',
    ...wholeNumber(1, 36_500),
    default: '395',
    doc: 'a conversation not used for this long is deleted with its messages, summaries and pending confirmations. Its audit rows stay (AUDIT_RETENTION_DAYS)',
  },
  OUTREACH_RETENTION_DAYS: {
    section: 'Retention',
    ...wholeNumber(1, 36_500),
    default: '395',
    doc: 'a completed campaign not changed for this long is deleted with its leads, tasks, actions and drafts; so are sandbox channel records this old. Its audit rows stay (AUDIT_RETENTION_DAYS)',
  },
  NOTIFICATION_RETENTION_DAYS: {
    section: 'Retention',
    ...wholeNumber(2, 36_500),
    default: '30',
    doc: "a notification this old is deleted from the outbox (and from the person's list), mailed or not. A webhook endpoint disabled for longer never receives what was deleted meanwhile (docs/webhooks.md)",
  },
  RETENTION_LEGAL_HOLD: {
    section: 'Retention',
    ...flag(),
    default: 'false',
    doc: '`true`: nothing is pruned, whatever its age (a legal hold). Erasure on request still runs',
  },
  RETENTION_INTERVAL_MINUTES: {
    section: 'Retention',
    ...wholeNumber(1, 7 * 24 * 60),
    default: '60',
    doc: 'how often a process offers to prune; one process at a time does (an advisory lock), the others leave',
  },
} as const satisfies Record<string, Setting>;
