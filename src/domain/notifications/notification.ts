/**
 * What Bridle tells people about calls it holds for them, and about what changes their work:
 * one row of the notifications outbox each, written in the transaction of what caused it
 * (so none is lost, none is made twice) and delivered afterwards by any replica, by email
 * and webhooks. The words a person reads come from these facts, which the server took from
 * the stored calls (a draft's action and lead, a confirmation's question), never from a
 * model's words.
 *
 * - `draft.awaiting_review`: an outreach action waits for its owner's review;
 * - `draft.escalated`: its owner did not decide in time, and a rule handed it to the admins;
 * - `draft.expired`: nobody decided it in time (whatever the rule's fallback does next: it
 *   is *expired*, never a refusal by a person);
 * - `confirmation.waiting`: a call an MCP client could not put to the person waits in the console;
 * - `campaign.paused` / `campaign.finished`: a campaign stopped working its leads;
 * - `policy.stored`: a new policy version is in force (for admins);
 * - `budget.threshold`: a person's spend passed a threshold of their month's budget;
 * - `webhook.disabled`: Bridle stopped delivering to a webhook endpoint of theirs (it failed for
 *   a whole retry window, or answered 410 Gone); for a deployment endpoint, to every admin.
 */
export const NOTIFICATION_EVENTS = [
  'draft.awaiting_review',
  'draft.escalated',
  'draft.expired',
  'confirmation.waiting',
  'campaign.paused',
  'campaign.finished',
  'policy.stored',
  'budget.threshold',
  'webhook.disabled',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** What a notification is about: the console page that shows it is derived from it (consoleLink). */
export type NotificationSubject =
  | { readonly kind: 'draft'; readonly id: string }
  | { readonly kind: 'confirmation'; readonly id: string; readonly conversationId: string }
  | { readonly kind: 'campaign'; readonly id: string }
  | { readonly kind: 'policy'; readonly version: number }
  | { readonly kind: 'budget'; readonly month: string }
  | { readonly kind: 'webhook'; readonly id: string };

/** Values the server read from what it stored: short strings, numbers, booleans. */
export type NotificationFacts = Readonly<Record<string, string | number | boolean | null>>;

/**
 * A notification to be written: to one person (`recipientId`), or to every admin
 * (`recipientId: null`, for deployment-wide events such as a stored policy version or an
 * escalated draft).
 */
export interface NewNotification {
  readonly recipientId: string | null;
  readonly event: NotificationEvent;
  readonly subject: NotificationSubject;
  readonly facts: NotificationFacts;
  readonly at: Date;
}

/**
 * The console's address of what a notification is about, as a hash route: the fragment never
 * reaches the server, so following the link (a person, or a mail scanner fetching every link)
 * changes nothing; the decision is made on the page by the signed-in person.
 */
export function consoleLink(subject: NotificationSubject): string {
  switch (subject.kind) {
    case 'draft':
      return `#review?draft=${encodeURIComponent(subject.id)}`;
    case 'confirmation':
      return `#chat?conversation=${encodeURIComponent(subject.conversationId)}&confirmation=${encodeURIComponent(subject.id)}`;
    case 'campaign':
      return `#campaigns?campaign=${encodeURIComponent(subject.id)}`;
    case 'policy':
      return `#policy?version=${subject.version}`;
    case 'budget':
      return '#settings';
    case 'webhook':
      return `#settings?webhook=${encodeURIComponent(subject.id)}`;
  }
}
