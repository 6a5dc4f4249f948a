import type { DraftStatus } from '../outreach/review';
import { clipped } from '../shared/words';
import type { NotificationEvent, NotificationFacts, NotificationSubject } from './notification';

/*
 * The words of one notification in a mail, written from what the stored rows say when the mail
 * is written (a draft's action, lead, campaign and text as the draft holds them now), never from
 * a model's explanation of itself. An expired draft is said to have expired: nobody refused it.
 */

/** What the stored rows say now of a notification's subject; `gone` when nothing of it is left (deleted, erased). */
export type SubjectNow =
  | {
      readonly kind: 'draft';
      readonly status: DraftStatus;
      readonly action: string;
      readonly args: Readonly<Record<string, unknown>>;
      readonly leadName: string;
      readonly campaignName: string;
      readonly expiresAt: Date;
      /** Whose draft it is, for the admins' copy of an escalation. */
      readonly ownerEmail: string | null;
    }
  | {
      readonly kind: 'confirmation';
      /** The server's question, as stored with the call it would run. */
      readonly question: string;
      readonly expiresAt: Date;
      readonly resolution: 'confirmed' | 'cancelled' | 'dropped' | null;
    }
  | { readonly kind: 'campaign'; readonly name: string; readonly status: string }
  | { readonly kind: 'policy'; readonly version: number; readonly authorEmail: string; readonly reason: string; readonly rules: number }
  | { readonly kind: 'budget' }
  | { readonly kind: 'webhook' }
  | { readonly kind: 'gone' };

/** One notification waiting for a person's mail, with its subject as it stands now. */
export interface MailItem {
  readonly seq: number;
  readonly event: NotificationEvent;
  readonly subject: NotificationSubject;
  readonly facts: NotificationFacts;
  readonly at: Date;
  /** Written for every admin (no recipient), rather than for this person alone. */
  readonly toAdmins: boolean;
  readonly now: SubjectNow;
}

/** An item as a mail shows it: a title, plain sentences, the stored text it is about (if any), and where to open it. */
export interface ItemWords {
  readonly title: string;
  readonly lines: readonly string[];
  /** Text of the person's or the campaign's (a draft's message, the server's question), shown apart, as it is. */
  readonly quote: string | null;
  readonly linkLabel: string;
}

const NAME_CHARS = 80;
const QUOTE_CHARS = 2000;

/** A stored name on one line: control characters and line breaks become spaces, cut to NAME_CHARS. */
export function oneLine(text: string, max = NAME_CHARS): string {
  // eslint-disable-next-line no-control-regex -- what is replaced is exactly the control characters
  return clipped(text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim(), max);
}

/** Stored text kept with its line breaks, other control characters dropped, cut to QUOTE_CHARS. */
function block(text: string): string {
  // eslint-disable-next-line no-control-regex -- tabs and line breaks stay, the rest of the control characters go
  return clipped(text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, ''), QUOTE_CHARS);
}

/** "2026-11-22 09:00 UTC". */
export function utcTime(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const string = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** What the draft would do, with whom: "an email to Ada Lovelace". */
function actionPhrase(action: string, leadName: string): string {
  const lead = oneLine(leadName);
  switch (action) {
    case 'send_email':
      return `an email to ${lead}`;
    case 'linkedin_send_message':
      return `a LinkedIn message to ${lead}`;
    case 'linkedin_scrape_profile':
      return `a look-up of ${lead}'s LinkedIn profile`;
    default:
      return `an action for ${lead}`;
  }
}

/** The draft's message as it holds it now: recipient, subject and body, as lines and a quote. */
function draftMessage(draft: Extract<SubjectNow, { kind: 'draft' }>): { lines: string[]; quote: string | null } {
  const { args } = draft;
  switch (draft.action) {
    case 'send_email': {
      const body = string(args.body);
      return {
        lines: [`To: ${oneLine(string(args.to) ?? '')}`, `Subject: ${oneLine(string(args.subject) ?? '', 200)}`],
        quote: body === null ? null : block(body),
      };
    }
    case 'linkedin_send_message': {
      const message = string(args.message);
      return { lines: [`To: ${oneLine(string(args.profileUrl) ?? '', 200)}`], quote: message === null ? null : block(message) };
    }
    case 'linkedin_scrape_profile':
      return { lines: [`Profile: ${oneLine(string(args.profileUrl) ?? '', 200)}`], quote: null };
    default:
      return { lines: [], quote: null };
  }
}

/** What became of a draft since it was held, when it is no longer waiting. */
function since(status: DraftStatus): string | null {
  switch (status) {
    case 'awaiting_review':
      return null;
    case 'approved':
      return 'It has been approved since.';
    case 'sent':
      return 'It has been approved and sent since.';
    case 'rejected':
      return 'A reviewer has turned it down since: nothing was sent.';
    case 'expired':
      return 'It has expired since: nobody decided it in time, and nothing was sent.';
  }
}

const GONE_TITLES: Readonly<Record<NotificationEvent, string>> = {
  'draft.awaiting_review': 'A draft waited for your review',
  'draft.escalated': 'A draft went to the admins for review',
  'draft.expired': 'A draft expired',
  'confirmation.waiting': 'A question waited for you in the console',
  'campaign.paused': 'A campaign was paused',
  'campaign.finished': 'A campaign finished',
  'policy.stored': 'A new policy version was stored',
  'budget.threshold': 'Your spending passed a threshold of your budget',
  'webhook.disabled': 'Bridle stopped delivering to a webhook of yours',
};

/** The words of one item; `now` is when the mail is written (a question may have expired by then). */
export function itemWords(item: MailItem, now: Date): ItemWords {
  const subject = item.now;
  switch (subject.kind) {
    case 'draft':
      return draftWords(item, subject);
    case 'confirmation':
      return confirmationWords(subject, now);
    case 'campaign':
      return campaignWords(item, subject);
    case 'policy':
      return {
        title: `Policy version ${subject.version} is in force`,
        lines: [`Stored by ${oneLine(subject.authorEmail)}, with ${subject.rules} ${subject.rules === 1 ? 'rule' : 'rules'}.`],
        quote: subject.reason === '' ? null : block(subject.reason),
        linkLabel: 'Read it in the console',
      };
    case 'budget':
      return {
        title: GONE_TITLES['budget.threshold'],
        lines: Object.entries(item.facts).map(([name, value]) => `${oneLine(name, 40)}: ${oneLine(String(value), 40)}`),
        quote: null,
        linkLabel: 'See your settings',
      };
    case 'webhook':
      return {
        title: GONE_TITLES['webhook.disabled'],
        lines: [
          item.facts.reason === 'gone'
            ? `${oneLine(String(item.facts.host ?? 'Its address'))} answered 410 Gone, so no more is sent to it until it is enabled again.`
            : `${oneLine(String(item.facts.host ?? 'Its address'))} did not take a message for 24 hours, so it was turned off; nothing more is sent to it until it is enabled again.`,
        ],
        quote: null,
        linkLabel: 'See its delivery log',
      };
    case 'gone':
      return { title: GONE_TITLES[item.event], lines: ['It has been deleted since.'], quote: null, linkLabel: 'Open the console' };
  }
}

function draftWords(item: MailItem, draft: Extract<SubjectNow, { kind: 'draft' }>): ItemWords {
  const what = actionPhrase(draft.action, draft.leadName);
  const campaign = `Campaign: ${oneLine(draft.campaignName)}.`;
  const message = draftMessage(draft);
  const waiting = draft.status === 'awaiting_review';
  const later = since(draft.status);
  const common = { quote: message.quote, linkLabel: waiting ? 'Review it in the console' : 'See it in the console' };
  switch (item.event) {
    case 'draft.escalated':
      if (item.toAdmins) {
        const owner = draft.ownerEmail ? `Its owner (${oneLine(draft.ownerEmail)})` : 'Its owner';
        return {
          title: `A draft waits for an admin's review: ${what}`,
          lines: [
            `${owner} did not decide it in time, and the review rule hands it to the admins.`,
            campaign,
            later ?? `Decide it before ${utcTime(draft.expiresAt)}. Undecided by then, it expires and its task stops.`,
            ...message.lines,
          ],
          ...common,
        };
      }
      return {
        title: `Your draft went to the admins: ${what}`,
        lines: [
          'You did not decide it in time, so the review rule handed it to the admins.',
          campaign,
          later ?? `You or an admin may still decide it before ${utcTime(draft.expiresAt)}.`,
          ...message.lines,
        ],
        ...common,
      };
    case 'draft.expired':
      return {
        title: `A draft expired: ${what}`,
        lines: ['Nobody decided it in time, and nothing was sent.', expiredNext(item.facts), campaign, ...message.lines],
        quote: message.quote,
        linkLabel: 'See it in the console',
      };
    default:
      return {
        title: `A draft waits for your review: ${what}`,
        lines: [campaign, later ?? `Decide it before ${utcTime(draft.expiresAt)}. Undecided by then, it expires.`, ...message.lines],
        ...common,
      };
  }
}

/** What the task does after its draft expired, as the expiry recorded it. */
function expiredNext(facts: NotificationFacts): string {
  const after = facts.escalated === true ? 'The admins had it too, after its owner’s time ran out. ' : '';
  return facts.next === 'task_cancelled'
    ? `${after}As the review rule says, its task stops here.`
    : `${after}Its task will make a new draft at its next turn.`;
}

function confirmationWords(question: Extract<SubjectNow, { kind: 'confirmation' }>, now: Date): ItemWords {
  const state =
    question.resolution === 'confirmed'
      ? 'You have confirmed it since.'
      : question.resolution === 'cancelled'
        ? 'You have cancelled it since: nothing was changed.'
        : question.resolution === 'dropped'
          ? 'It has been set aside since: nothing was changed.'
          : question.expiresAt <= now
            ? 'It expired before it was answered: nothing was changed.'
            : `Answer it before ${utcTime(question.expiresAt)}.`;
  return {
    title: 'A question waits for you in the console',
    lines: ['An app connected over MCP asked for something that needs your yes, and could not ask you itself.', state],
    quote: block(question.question),
    linkLabel: 'Answer it in the console',
  };
}

function campaignWords(item: MailItem, campaign: Extract<SubjectNow, { kind: 'campaign' }>): ItemWords {
  const name = oneLine(campaign.name);
  if (item.event === 'campaign.paused') {
    return {
      title: `Campaign paused: ${name}`,
      lines: ['It takes no new task until it is started again.'],
      quote: null,
      linkLabel: 'See it in the console',
    };
  }
  const count = (fact: string): number => {
    const value = item.facts[fact];
    return typeof value === 'number' ? value : 0;
  };
  return {
    title: `Campaign finished: ${name}`,
    lines: [`Every task is done: ${count('completed')} completed, ${count('failed')} failed, ${count('cancelled')} cancelled.`],
    quote: null,
    linkLabel: 'See it in the console',
  };
}
