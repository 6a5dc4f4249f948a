import { flag, httpUrl, list, pattern, text, wholeNumber } from './rules';
import { type Setting } from './setting';

/** The Outreach section of docs/configuration.md, in its order. */
export const OUTREACH_SETTINGS = {
  OUTREACH_WORKER: {
    section: 'Outreach',
    ...flag(),
    defaultText: '`true` on the embedded database, `false` with `DATABASE_URL`',
    doc: '`true` runs an outreach worker inside the server process, so a started campaign runs by itself after `npm start`. Beside a PostgreSQL server, run workers as their own processes (`node dist/worker.js` is always a worker)',
  },
  OUTREACH_OWNER_LIMITS: {
    section: 'Outreach',
    ...list('`kind:day:max` or `kind:week:max`, comma-separated', {
      regex: /^[a-z][a-z0-9_]{0,31}:(day:\d{1,6}|week:\d{1,6})$/,
      what: 'kind:day:max or kind:week:max',
    }),
    defaultText: 'unset: the six settings below',
    doc: "each owner's limits across all their campaigns, keyed by kind: `email:day:100,email:week:500,sms:day:20`. Any kind a channel performs; a day's max at most 100000, a week's at most 700000; `0` stops that kind. A kind and window it names wins over the setting below that names the same (`OUTREACH_OWNER_DAILY_*` and `OUTREACH_OWNER_WEEKLY_*` are its older spelling, kept as aliases); a kind neither names has 100 a day and no weekly limit",
  },
  OUTREACH_OWNER_DAILY_PROFILE_LOOKUPS: {
    section: 'Outreach',
    ...wholeNumber(0, 100_000),
    default: '100',
    doc: "profile look-ups per owner per UTC day, across all their campaigns, on top of each campaign's own `dailyLimits` (50 each unless set). `0` stops that kind",
  },
  OUTREACH_OWNER_DAILY_LINKEDIN_MESSAGES: {
    section: 'Outreach',
    ...wholeNumber(0, 100_000),
    default: '100',
    doc: 'the same, for LinkedIn messages',
  },
  OUTREACH_OWNER_DAILY_EMAILS: {
    section: 'Outreach',
    ...wholeNumber(0, 100_000),
    default: '100',
    doc: 'the same, for emails',
  },
  // LinkedIn tolerates about 100 connection invitations a week; look-ups and emails get 5 days of the daily default.
  OUTREACH_OWNER_WEEKLY_PROFILE_LOOKUPS: {
    section: 'Outreach',
    ...wholeNumber(0, 700_000),
    default: '500',
    doc: "profile look-ups per owner per rolling week (the UTC day and the 6 before it), across all their campaigns, on top of the daily ones and of each campaign's own `weeklyLimits` (none unless set). `500`: five days of the daily default. `0` stops that kind ([weekly limits](outreach.md))",
  },
  OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES: {
    section: 'Outreach',
    ...wholeNumber(0, 700_000),
    default: '100',
    doc: 'the same, for LinkedIn messages. `100`: about what LinkedIn tolerates in connection invitations a week',
  },
  OUTREACH_OWNER_WEEKLY_EMAILS: {
    section: 'Outreach',
    ...wholeNumber(0, 700_000),
    default: '500',
    doc: 'the same, for emails',
  },
  OUTREACH_LEASE_MS: {
    section: 'Outreach',
    ...wholeNumber(1_000, 3_600_000),
    default: '120000',
    doc: 'how long a claimed task, and an action in flight, belong to one worker. Past it, another worker may claim the task, and the sweeper settles the action',
  },
  OUTREACH_PLAN_TIMEOUT_MS: {
    section: 'Outreach',
    ...wholeNumber(1_000, 600_000),
    default: '60000',
    doc: 'deadline of asking the model for an action, re-ask included',
  },
  OUTREACH_ACTION_TIMEOUT_MS: {
    section: 'Outreach',
    ...wholeNumber(100, 600_000),
    default: '30000',
    doc: "deadline of one channel action (also the MCP LinkedIn client's request timeout)",
  },
  OUTREACH_POLL_INTERVAL_MS: {
    section: 'Outreach',
    ...wholeNumber(10, 600_000),
    default: '2000',
    doc: "a worker's pause when nothing is due, or after a crashed cycle",
  },
  OUTREACH_DRAFT_TTL_HOURS: {
    section: 'Outreach',
    ...wholeNumber(1, 24 * 30),
    default: '72',
    doc: "how long a draft held for review (a campaign's `approvalMode`) waits for its owner. Past it, the sweeper expires it, gives its quota slot back and makes its task due again for a fresh draft",
  },
  OUTREACH_SWEEP_INTERVAL_MS: {
    section: 'Outreach',
    ...wholeNumber(100, 3_600_000),
    default: '60000',
    doc: 'how often actions left in flight are swept: by each worker (at its start, then between cycles) and by each server process that runs no worker (at start, then on this interval)',
  },
  OUTREACH_SECRET_NAMES: {
    section: 'Outreach',
    ...list('names matching `[a-z0-9][a-z0-9_-]*`', { regex: /^[a-z0-9][a-z0-9_-]*$/, what: 'a secret name' }),
    default: 'linkedin-session',
    doc: 'the secret names `refresh_session` may ask for',
  },
  OUTREACH_MCP_URL: {
    section: 'Outreach',
    ...httpUrl(),
    defaultText: 'unset: sandbox LinkedIn',
    doc: "your LinkedIn MCP server over Streamable HTTP. Opt-in: automating a LinkedIn account may break LinkedIn's terms",
  },
  OUTREACH_MCP_COMMAND: {
    section: 'Outreach',
    ...text('a command line, split on spaces (no quoting)'),
    doc: 'the same server started over stdio. Cannot be set together with `OUTREACH_MCP_URL`',
  },
  SMTP_URL: {
    section: 'Outreach',
    ...pattern(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL', '`smtp://…` or `smtps://…`'),
    defaultText: 'unset: sandbox outbox',
    doc: 'an SMTP server for outreach email (nodemailer), and for notification mail to the people who use Bridle ([notifications](notifications.md)); unset, neither goes anywhere real and email notifications are off',
  },
  SMTP_FROM: {
    section: 'Outreach',
    ...text('an address'),
    default: 'Bridle <outreach@localhost>',
    doc: 'the sender. Its domain also names the `Message-ID`s. A domain that is not a plain host name stops the start',
  },
} as const satisfies Record<string, Setting>;
