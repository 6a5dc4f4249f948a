import {
  ACTION_CONTRACTS,
  ACTION_NAMES,
  type ActionName,
  COOLDOWN_MAX_HOURS,
  MESSAGE_MAX_LENGTH,
  type Proposal,
} from '../../../domain/outreach/actions';
import {
  BRIEF_FIELDS,
  type CampaignBrief,
  fillTemplate,
  type MessageTemplates,
  outsideText,
  TEMPLATE_FIELDS,
  type TemplateValues,
  templateValues,
} from '../../../domain/outreach/brief';
import { UNTRUSTED_CLOSE, UNTRUSTED_OPEN } from '../../../application/outreach/outreach-planner.prompt';
import { canonicalProfileUrl } from '../../../domain/outreach/lead';
import { emailAddress } from '../../../domain/shared/email-address';
import { TASK_ACTION, TASK_TYPES, type BuiltInTaskType } from '../../../domain/outreach/outreach-task';

/** What the offline planner reads from a prompt rendered by `outreachUserPrompt`. */
interface OutreachPrompt {
  readonly campaignId: string;
  readonly taskType: BuiltInTaskType | null;
  readonly lastError: string | null;
  readonly lead: { readonly name: string; readonly profileUrl: string } | null;
  readonly email: string | null;
  readonly profile: Profile;
  readonly quotaRemaining: number | null;
  readonly cooldownHours: number | null;
  readonly tools: readonly ActionName[];
  readonly secrets: readonly string[];
  readonly brief: CampaignBrief;
  readonly templates: MessageTemplates;
}

/** What a message may mention of the lead's profile look-up. */
interface Profile {
  readonly title?: string;
  readonly company?: string;
}

/** The labels of the CAMPAIGN BRIEF block's lines, per field. */
const BRIEF_LABELS: Readonly<Record<keyof CampaignBrief, string>> = {
  offer: '- Offer:',
  tone: '- Tone:',
  callToAction: '- Call to action:',
  senderName: '- Sender name:',
  signature: '- Signature:',
};
const TEMPLATE_LABELS: Readonly<Record<keyof MessageTemplates, string>> = {
  linkedinMessage: '- LinkedIn message template:',
  emailSubject: '- Email subject template:',
  emailBody: '- Email body template:',
};

const SECRET_NAME = /^[a-z0-9][a-z0-9_-]*$/i;
const SCRAPE_FIELDS = ['name', 'headline', 'title', 'company', 'location'] as const;
const SUBJECT_MAX_LENGTH = ACTION_CONTRACTS.send_email.args.properties?.subject.maxLength ?? 200;
const BODY_MAX_LENGTH = ACTION_CONTRACTS.send_email.args.properties?.body.maxLength ?? 10_000;

/**
 * The offline model's answer to an outreach planning prompt: the JSON text of one action,
 * or null when `userPrompt` is not an outreach prompt this planner can read. The rules mirror
 * the prompt's constraints, in order: wrap up, respect the quota, refresh an expired session,
 * then do what the task says for its lead.
 */
export function planOutreachAction(userPrompt: string): string | null {
  const prompt = read(userPrompt);
  if (!prompt) return null;
  const proposal = plan(prompt);
  return proposal ? JSON.stringify({ action: proposal.action, args: proposal.args, reason: proposal.reason }) : null;
}

function plan(prompt: OutreachPrompt): Proposal | null {
  const { tools } = prompt;
  if (tools.length === 1 && tools[0] === 'complete_campaign') {
    return {
      action: 'complete_campaign',
      args: { campaignId: prompt.campaignId },
      reason: 'Every task of this campaign is finished, so the campaign can be completed.',
    };
  }
  if (prompt.quotaRemaining === 0 && tools.includes('wait_cooldown') && prompt.cooldownHours !== null) {
    return {
      action: 'wait_cooldown',
      args: { durationHours: prompt.cooldownHours },
      reason: 'The daily quota for this task is used up, so wait until it resets at the next UTC midnight.',
    };
  }
  const secret = prompt.secrets.find((name) => SECRET_NAME.test(name));
  if (prompt.lastError === 'SESSION_EXPIRED' && secret && tools.includes('refresh_session')) {
    return {
      action: 'refresh_session',
      args: { secretName: secret },
      reason: 'The last attempt failed with SESSION_EXPIRED, so refresh the channel session before retrying.',
    };
  }
  if (!prompt.taskType || !prompt.lead || !tools.includes(TASK_ACTION[prompt.taskType].action)) return null;
  const { lead } = prompt;
  switch (prompt.taskType) {
    case 'ScrapeProfile':
      return {
        action: 'linkedin_scrape_profile',
        args: { profileUrl: lead.profileUrl, fields: SCRAPE_FIELDS },
        reason: "Look up the lead's profile first, so that later messages can be personalised.",
      };
    case 'SendLinkedInMessage':
      return {
        action: 'linkedin_send_message',
        args: { profileUrl: lead.profileUrl, message: linkedinMessage(prompt, lead) },
        reason: 'Send the lead a short, polite and personalised LinkedIn message, as this task asks.',
      };
    case 'SendEmail':
      return prompt.email === null
        ? null
        : {
            action: 'send_email',
            args: { to: prompt.email, ...email(prompt, lead) },
            reason: 'Send the lead a short, polite and personalised email, as this task asks.',
          };
  }
}

/** A LinkedIn message: the brief's template filled for this lead, or one written from the brief. */
function linkedinMessage(prompt: OutreachPrompt, lead: { name: string }): string {
  const values = valuesFor(prompt, lead);
  const filled = prompt.templates.linkedinMessage && fillTemplate(prompt.templates.linkedinMessage, values).trim();
  if (filled) return filled.slice(0, MESSAGE_MAX_LENGTH);
  const { brief } = prompt;
  const voice = voiceOf(brief.tone);
  const text = [
    `${voice.greeting} ${values.firstName}, ${noticed(prompt.profile)}`,
    brief.offer ? offerSentence(brief.offer) : "I'd love to connect and share a few ideas that might be useful to you.",
    brief.callToAction ? sentence(brief.callToAction) : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `${text} ${closing(voice, brief, '\n')}`.slice(0, MESSAGE_MAX_LENGTH);
}

/** An email: the brief's templates filled for this lead, or a subject and body written from the brief. */
function email(prompt: OutreachPrompt, lead: { name: string }): { subject: string; body: string } {
  const values = valuesFor(prompt, lead);
  const { brief, templates } = prompt;
  const company = outsideText(prompt.profile.company);
  const subjectFilled = templates.emailSubject && oneLine(fillTemplate(templates.emailSubject, values));
  const subject = (
    subjectFilled || (company ? `A quick hello for ${values.firstName} at ${company}` : `A quick hello for ${values.firstName}`)
  ).slice(0, SUBJECT_MAX_LENGTH);
  const bodyFilled = templates.emailBody && fillTemplate(templates.emailBody, values).trim();
  if (bodyFilled) return { subject, body: bodyFilled.slice(0, BODY_MAX_LENGTH) };
  const voice = voiceOf(brief.tone);
  const body = [
    `${voice.greeting} ${values.firstName},`,
    `${noticed(prompt.profile)} ${
      brief.offer
        ? offerSentence(brief.offer)
        : "I'd love to share a few ideas that might be useful to you and hear how you approach things."
    }`,
    brief.callToAction ? sentence(brief.callToAction) : 'Would you be open to a short chat in the coming weeks?',
    closing(voice, brief, '\n'),
  ].join('\n\n');
  return { subject, body: body.slice(0, BODY_MAX_LENGTH) };
}

function valuesFor(prompt: OutreachPrompt, lead: { name: string }): TemplateValues {
  const { title, company } = prompt.profile;
  return templateValues({ leadName: lead.name, profile: { title, company }, brief: prompt.brief });
}

interface Voice {
  readonly greeting: string;
  readonly signOff: string;
}

/** How the tone sounds at the start and the end of a message. */
function voiceOf(tone: string | null): Voice {
  if (tone && /\b(formal|professional|respectful|polite)\b/i.test(tone)) return { greeting: 'Dear', signOff: 'Kind regards' };
  if (tone && /\b(casual|informal|relaxed|playful|chatty|warm|friendly)\b/i.test(tone)) return { greeting: 'Hey', signOff: 'Cheers' };
  return { greeting: 'Hi', signOff: 'Best regards' };
}

/** "as CTO at Acme": what the profile look-up found, when it is fit to repeat. */
function noticed(profile: Profile): string {
  const role = roleOf(profile);
  return role ? `I came across your profile and was impressed by your work ${role}.` : 'I came across your profile.';
}

/** The sign-off, then the signature (or the sender's name) on its own line. */
function closing(voice: Voice, brief: OutreachPrompt['brief'], separator: string): string {
  const signature = brief.signature ?? brief.senderName;
  return signature ? `${voice.signOff},${separator}${signature}` : voice.signOff;
}

/** "A free review of your CI" → "I'd like to offer you a free review of your CI." */
function offerSentence(offer: string): string {
  const text = oneLine(offer);
  // "A …" and "Our …" start lower-case after "offer you"; "CI …" (an acronym) stays as it is.
  const lowered = /^\p{Lu}(?:\p{Ll}|\s|$)/u.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
  return sentence(`I'd like to offer you ${lowered}`);
}

/** The text as one sentence: one line, ending with its own punctuation or a full stop. */
function sentence(text: string): string {
  const line = oneLine(text);
  return /[.!?…)]$/.test(line) ? line : `${line}.`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** "as CTO at Acme", "as CTO", "at Acme", or '' when the look-up found neither (or nothing fit to repeat). */
function roleOf(profile: Profile): string {
  const title = outsideText(profile.title);
  const company = outsideText(profile.company);
  return [title && `as ${title}`, company && `at ${company}`].filter(Boolean).join(' ');
}

/**
 * Reads the lines of `outreachUserPrompt`. Untrusted text (names, scraped values) is one JSON
 * line between the UNTRUSTED fences and the brief's values are JSON strings, so a label at
 * the start of a line is always the prompt's own.
 */
function read(text: string): OutreachPrompt | null {
  const lines = text.split('\n').map((line) => line.trimEnd());
  if (lines[0]?.trim() !== 'CURRENT TASK:') return null;
  const field = (label: string): string | null => {
    const line = lines.find((candidate) => candidate.startsWith(label));
    return line === undefined ? null : line.slice(label.length).trim();
  };
  const campaignId = /\(([^()\s]+)\)$/.exec(field('- Campaign:') ?? '')?.[1];
  const toolsLine = field('Available tools:');
  if (campaignId === undefined || toolsLine === null) return null;
  const tools = toolsLine
    .split(',')
    .map((tool) => tool.trim())
    .filter((tool): tool is ActionName => ACTION_NAMES.includes(tool as ActionName));

  const type = field('- Task Type:');
  // From the last word's first parenthesis: tried where a word starts, so a run of ( is read once.
  const target = /(?<!\S)[^\s(]*\((\S+)\)$/.exec(field('- Target Lead:') ?? '');
  const profileUrl = target && canonicalProfileUrl(target[1]);
  const untrusted = untrustedData(lines);
  const lastError = field('- Last error:');
  const remaining = field('- Daily quota remaining:');
  const cooldown = Number(/"wait_cooldown" with durationHours = (\d+(?:\.\d+)?)$/.exec(field('- If quota = 0,') ?? '')?.[1]);
  const secrets = field('Session secrets:');
  return {
    campaignId,
    taskType: TASK_TYPES.find((known) => known === type) ?? null,
    lastError: lastError === null || lastError === 'none' ? null : lastError,
    lead: profileUrl ? { name: untrusted.name, profileUrl } : null,
    email: emailAddress(field('- Lead email:'))?.address ?? null,
    profile: untrusted.profile,
    quotaRemaining: remaining !== null && /^\d+$/.test(remaining) ? Number(remaining) : null,
    cooldownHours: cooldown >= 0.01 && cooldown <= COOLDOWN_MAX_HOURS ? cooldown : null,
    tools,
    brief: textsOf(BRIEF_FIELDS, BRIEF_LABELS, field),
    templates: textsOf(TEMPLATE_FIELDS, TEMPLATE_LABELS, field),
    secrets:
      secrets === null || secrets === 'none'
        ? []
        : secrets
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
  };
}

/** The lead's name and what a message may use of its profile, from the JSON line after the UNTRUSTED fence. */
function untrustedData(lines: readonly string[]): { name: string; profile: Profile } {
  const at = lines.indexOf(UNTRUSTED_OPEN);
  let data: unknown;
  try {
    data = at === -1 || lines[at + 2] !== UNTRUSTED_CLOSE ? null : JSON.parse(lines[at + 1]);
  } catch {
    data = null;
  }
  const lead = isRecord(data) && isRecord(data.lead) ? data.lead : {};
  const profile = isRecord(lead.profile) ? lead.profile : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { name: text(lead.name) ?? '', profile: { title: text(profile.title), company: text(profile.company) } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The brief's texts, each a JSON string on its line (or `none`). */
function textsOf<K extends string>(
  fields: readonly K[],
  labels: Readonly<Record<K, string>>,
  field: (label: string) => string | null,
): Record<K, string | null> {
  return Object.fromEntries(fields.map((name) => [name, jsonText(field(labels[name]))])) as Record<K, string | null>;
}

function jsonText(value: string | null): string | null {
  if (value === null || !value.startsWith('"')) return null;
  try {
    const text: unknown = JSON.parse(value);
    return typeof text === 'string' && text.trim() !== '' ? text : null;
  } catch {
    return null;
  }
}
