import { MESSAGE_MAX_LENGTH } from './actions';
import { normaliseUntrustedText } from '../shared/untrusted-text-normalisation';

/**
 * A campaign's brief: what its owner wants the messages to say and how. Every field is
 * optional text; the planner's prompt carries it (CAMPAIGN BRIEF), and the offline planner
 * writes its messages from it.
 */
export interface CampaignBrief {
  /** What is offered, e.g. "A 30-minute audit of your CI pipeline". */
  readonly offer: string | null;
  /** How the messages sound, e.g. "friendly", "formal". */
  readonly tone: string | null;
  /** What the lead is asked to do, e.g. "Reply with a time that suits you". */
  readonly callToAction: string | null;
  /** Who the messages come from, e.g. "Sam Rivera". */
  readonly senderName: string | null;
  /** The closing lines, e.g. "Sam Rivera\nAcme Tools". */
  readonly signature: string | null;
}

/** Message templates with placeholders ({{firstName}}…), filled per lead. */
export interface MessageTemplates {
  readonly linkedinMessage: string | null;
  readonly emailSubject: string | null;
  readonly emailBody: string | null;
}

export const EMPTY_BRIEF: CampaignBrief = { offer: null, tone: null, callToAction: null, senderName: null, signature: null };
export const EMPTY_TEMPLATES: MessageTemplates = { linkedinMessage: null, emailSubject: null, emailBody: null };

export const BRIEF_FIELDS = ['offer', 'tone', 'callToAction', 'senderName', 'signature'] as const;
export const TEMPLATE_FIELDS = ['linkedinMessage', 'emailSubject', 'emailBody'] as const;

/** Longest text per field, in characters, once trimmed. */
export const BRIEF_MAX_LENGTH: Readonly<Record<keyof CampaignBrief, number>> = {
  offer: 1000,
  tone: 100,
  callToAction: 300,
  senderName: 100,
  signature: 300,
};

export const TEMPLATE_MAX_LENGTH: Readonly<Record<keyof MessageTemplates, number>> = {
  linkedinMessage: MESSAGE_MAX_LENGTH,
  emailSubject: 200,
  emailBody: 5000,
};

/** Fields that must be one line; the others may have several. */
const ONE_LINE: ReadonlySet<string> = new Set(['tone', 'callToAction', 'senderName', 'emailSubject']);

/** What a template may name; each is filled from the lead, its profile look-up or the brief. */
export const PLACEHOLDERS = ['firstName', 'name', 'company', 'title', 'senderName', 'signature'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateValues = Readonly<Record<Placeholder, string>>;

/** What stands for a value nobody knows (a profile not looked up, a brief without a sender). */
export const PLACEHOLDER_FALLBACK: TemplateValues = {
  firstName: 'there',
  name: 'there',
  company: 'your company',
  title: 'your role',
  senderName: '',
  signature: '',
};

/** `{{ name }}`, with optional blanks inside the braces: the group, trimmed (blanks in the pattern are tried at every split). */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** A field the request got wrong, named by its path (`brief.tone`, `templates.emailBody`). */
export interface BriefProblem {
  readonly field: string;
  readonly message: string;
}

export type BriefResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: BriefProblem };

/**
 * The brief from a request: each field given replaces the base's (null or blank text clears
 * it), a field not given keeps the base's. Unknown fields are refused by name.
 */
export function briefOf(changes: unknown, base: CampaignBrief): BriefResult<CampaignBrief> {
  return textFields('brief', changes, base, BRIEF_FIELDS, BRIEF_MAX_LENGTH, () => null);
}

/**
 * The templates from a request, as briefOf; a template may name only PLACEHOLDERS, each
 * `{{name}}`, and a stray `{{` or `}}` is refused.
 */
export function templatesOf(changes: unknown, base: MessageTemplates): BriefResult<MessageTemplates> {
  return textFields('templates', changes, base, TEMPLATE_FIELDS, TEMPLATE_MAX_LENGTH, placeholderProblem);
}

function textFields<T extends { readonly [K in keyof T]: string | null }>(
  group: string,
  changes: unknown,
  base: T,
  fields: readonly (keyof T & string)[],
  maxLength: Readonly<Record<keyof T & string, number>>,
  extra: (text: string) => string | null,
): BriefResult<T> {
  if (changes === undefined) return { ok: true, value: base };
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) {
    return { ok: false, problem: { field: group, message: `${group} must be an object` } };
  }
  const result: Record<string, string | null> = { ...base };
  for (const [field, raw] of Object.entries(changes as Record<string, unknown>)) {
    const path = `${group}.${field}`;
    if (!(fields as readonly string[]).includes(field)) {
      return { ok: false, problem: { field: path, message: `${group} accepts only ${fields.join(', ')}` } };
    }
    if (raw === undefined) continue;
    if (raw !== null && typeof raw !== 'string') {
      return { ok: false, problem: { field: path, message: `${path} must be text, or null to clear it` } };
    }
    const text = raw === null ? '' : raw.replace(/\r\n?/g, '\n').trim();
    const max = maxLength[field as keyof T & string];
    const problem =
      text.length > max
        ? `${path} must be at most ${max} characters long`
        : ONE_LINE.has(field) && /[\n\u0085\u2028\u2029]/.test(text)
          ? `${path} must be one line`
          : // eslint-disable-next-line no-control-regex
            /[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)
            ? `${path} must not contain control characters`
            : extra(text);
    if (problem) return { ok: false, problem: { field: path, message: problem.startsWith(path) ? problem : `${path} ${problem}` } };
    result[field] = text === '' ? null : text;
  }
  return { ok: true, value: result as T };
}

/** Why a template's placeholders are refused, or null. */
function placeholderProblem(template: string): string | null {
  const unknown = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1].trim();
    if (!(PLACEHOLDERS as readonly string[]).includes(name)) unknown.add(`{{${name}}}`);
  }
  if (unknown.size > 0) {
    return `names an unknown placeholder ${[...unknown].join(', ')}: use ${PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')}`;
  }
  const rest = template.replace(PLACEHOLDER, '');
  if (rest.includes('{{') || rest.includes('}}')) return 'has a {{ or }} that is not part of a placeholder such as {{firstName}}';
  return null;
}

/** A template with each placeholder replaced by its value. */
export function fillTemplate(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (_, name: string) => values[name.trim() as Placeholder] ?? '');
}

/** Text from outside (a lead's name, a scraped profile) longer than this is not put in a message. */
const OUTSIDE_TEXT_MAX = 100;
const FIRST_NAME_MAX = 60;
/** An address or link: text from outside that carries one is never copied into a message. */
const ADDRESS_LIKE = /@|:\/\/|\bwww\.|linkedin\.com/i;
/** Whether outside text carries an address or a link as its reader sees it (a hidden ＠ or "at … dot" too). */
const carriesAddress = (text: string) => ADDRESS_LIKE.test(normaliseUntrustedText(text));

/**
 * The values of a template's placeholders for one lead. The lead's name and its profile are
 * text from outside: a value that is long, multi-line or carries an address or a link is
 * left out (its fallback stands instead), so a message never repeats one.
 */
export function templateValues(input: {
  readonly leadName: string;
  readonly profile: Readonly<Record<string, unknown>> | null;
  readonly brief: CampaignBrief;
}): TemplateValues {
  const name = outsideText(input.leadName);
  const firstName = firstNameOf(input.leadName);
  return {
    firstName: carriesAddress(firstName) ? PLACEHOLDER_FALLBACK.firstName : firstName,
    name: name ?? PLACEHOLDER_FALLBACK.name,
    company: outsideText(input.profile?.company) ?? PLACEHOLDER_FALLBACK.company,
    title: outsideText(input.profile?.title) ?? PLACEHOLDER_FALLBACK.title,
    senderName: input.brief.senderName ?? PLACEHOLDER_FALLBACK.senderName,
    signature: input.brief.signature ?? input.brief.senderName ?? PLACEHOLDER_FALLBACK.signature,
  };
}

/** Text from outside that may go into a message: one line, short, with no address or link; else null. */
export function outsideText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/g, ' ').trim();
  if (text === '' || text.length > OUTSIDE_TEXT_MAX || carriesAddress(text)) return null;
  return text;
}

/** The first word of the name that starts with a letter, without quotes or brackets around it. */
export function firstNameOf(name: string): string {
  const word = /[\p{L}\p{M}][\p{L}\p{M}\p{N}'’.-]*/u.exec(name)?.[0].replace(/(?<!['’.-])['’.-]+$/u, '');
  return word ? word.slice(0, FIRST_NAME_MAX) : PLACEHOLDER_FALLBACK.firstName;
}
