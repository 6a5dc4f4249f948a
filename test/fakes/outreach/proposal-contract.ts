import type { TaskCycleContext } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { CycleContext } from '../../../src/domain/outreach/planning';

/**
 * An oracle that restates the outreach action contract on its own, without the code under
 * test: what the validator (docs/guarantees.md) must accept.
 */

export type JsonObject = Record<string, unknown>;

/** The contract, restated from the planner's instructions and docs/api.md, not from src/. */
export const CONTRACT = {
  actions: ['linkedin_scrape_profile', 'linkedin_send_message', 'send_email', 'wait_cooldown', 'refresh_session', 'complete_campaign'],
  byTaskType: { ScrapeProfile: 'linkedin_scrape_profile', SendLinkedInMessage: 'linkedin_send_message', SendEmail: 'send_email' },
  profileFields: ['name', 'headline', 'title', 'company', 'location', 'email'],
  reason: { min: 10, max: 200 },
  message: { min: 1, max: 1900 },
  subject: { min: 1, max: 200 },
  body: { min: 1, max: 10_000 },
  cooldownHours: { min: 0.01, max: 168 },
} as const;

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
export const between = (n: number, min: number, max: number) => n >= min && n <= max;
const text = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && between(value.length, min, max);

/** Own keys are exactly `required` plus any of `optional`. */
function hasKeys(value: JsonObject, required: readonly string[], optional: readonly string[] = []): boolean {
  const keys = Object.keys(value);
  return required.every((key) => keys.includes(key)) && keys.every((key) => required.includes(key) || optional.includes(key));
}

/** The lead's profile, however spelled: optional www and trailing slash, any letter case in the name, surrounding blanks. */
function isTheLeadsProfile(url: unknown, context: TaskCycleContext): boolean {
  if (typeof url !== 'string' || url.length > 200) return false;
  const match = /^https:\/\/(?:www\.)?linkedin\.com\/in\/([^/?#\s]+)\/?$/.exec(url.trim());
  const leadSlug = context.lead.linkedinUrl.split('/in/')[1].replace(/\/$/, '');
  return match !== null && match[1].toLowerCase() === leadSlug && !context.doNotContact.includes(context.lead.linkedinUrl);
}

function isTheLeadsEmail(to: unknown, context: TaskCycleContext): boolean {
  const email = context.lead.email;
  return (
    typeof to === 'string' &&
    to.length <= 254 &&
    email !== null &&
    // One trailing dot names the same domain (the root's): mail is delivered to the lead alike.
    to.trim().toLowerCase().replace(/\.$/, '') === email &&
    !context.doNotContact.includes(email)
  );
}

/**
 * Whether the controller may carry out `value` in `context`: one object with exactly
 * action, args and reason; an action on offer in this cycle; exactly its arguments, of the
 * right types and lengths; targets that are the task's lead and not on the do-not-contact
 * list; a reason of 10–200 characters once trimmed.
 */
export function contractAccepts(value: unknown, context: CycleContext): boolean {
  if (!isObject(value) || !hasKeys(value, ['action', 'args', 'reason'])) return false;
  const { action, args, reason } = value;
  if (typeof reason !== 'string' || !between(reason.trim().length, CONTRACT.reason.min, CONTRACT.reason.max)) return false;
  if (!isObject(args) || typeof action !== 'string') return false;
  if (context.kind === 'wrap_up') {
    return action === 'complete_campaign' && hasKeys(args, ['campaignId']) && args.campaignId === context.campaign.id;
  }
  const onOffer: string[] = [
    CONTRACT.byTaskType[context.task.type as keyof typeof CONTRACT.byTaskType],
    'wait_cooldown',
    'refresh_session',
  ];
  if (!onOffer.includes(action)) return false;
  switch (action) {
    case 'linkedin_scrape_profile':
      return (
        hasKeys(args, ['profileUrl', 'fields']) &&
        isTheLeadsProfile(args.profileUrl, context) &&
        Array.isArray(args.fields) &&
        between(args.fields.length, 1, CONTRACT.profileFields.length) &&
        args.fields.every((field) => (CONTRACT.profileFields as readonly unknown[]).includes(field))
      );
    case 'linkedin_send_message':
      return (
        hasKeys(args, ['profileUrl', 'message']) &&
        isTheLeadsProfile(args.profileUrl, context) &&
        text(args.message, CONTRACT.message.min, CONTRACT.message.max) &&
        said(args.message)
      );
    case 'send_email':
      return (
        hasKeys(args, ['to', 'subject', 'body']) &&
        isTheLeadsEmail(args.to, context) &&
        text(args.subject, CONTRACT.subject.min, CONTRACT.subject.max) &&
        !/[\r\n\u0085\u2028\u2029]/.test(args.subject) &&
        said(args.subject) &&
        text(args.body, CONTRACT.body.min, CONTRACT.body.max) &&
        said(args.body)
      );
    case 'wait_cooldown':
      // The planner's instructions show a fallback example with a reason inside args.
      return (
        hasKeys(args, ['durationHours'], ['reason']) &&
        typeof args.durationHours === 'number' &&
        Number.isFinite(args.durationHours) &&
        between(args.durationHours, CONTRACT.cooldownHours.min, CONTRACT.cooldownHours.max) &&
        (args.reason === undefined || text(args.reason, 0, 200))
      );
    case 'refresh_session':
      return hasKeys(args, ['secretName']) && typeof args.secretName === 'string' && context.secretNames.includes(args.secretName);
    default:
      return false;
  }
}

/** The oracle applied to an answer as the model sends it: text that must parse to one object. */
export function contractAcceptsText(answer: string | null, context: CycleContext): boolean {
  try {
    return contractAccepts(JSON.parse(answer ?? ''), context);
  } catch {
    return false;
  }
}

/** Text a person reads has something besides white space in it. */
export function said(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
