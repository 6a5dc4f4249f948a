import { ACTION_NAMES, type ActionName, COOLDOWN_MAX_HOURS, MESSAGE_MAX_LENGTH, type Proposal } from '../../../domain/outreach/actions';
import { canonicalEmail, canonicalProfileUrl } from '../../../domain/outreach/lead';
import { TASK_ACTION, TASK_TYPES, type OutreachTaskType } from '../../../domain/outreach/outreach-task';

/** What the offline planner reads from a prompt rendered by `outreachUserPrompt`. */
interface OutreachPrompt {
  readonly campaignId: string;
  readonly taskType: OutreachTaskType | null;
  readonly lastError: string | null;
  readonly lead: { readonly name: string; readonly profileUrl: string } | null;
  readonly email: string | null;
  readonly profile: Profile;
  readonly quotaRemaining: number | null;
  readonly cooldownHours: number | null;
  readonly tools: readonly ActionName[];
  readonly secrets: readonly string[];
}

/** What a message may mention of the lead's profile look-up. */
interface Profile {
  readonly title?: string;
  readonly company?: string;
}

const SECRET_NAME = /^[a-z0-9][a-z0-9_-]*$/i;
const SCRAPE_FIELDS = ['name', 'headline', 'title', 'company', 'location'] as const;
/** Scraped text is a third party's: only this much of it goes into a message. */
const PROFILE_TEXT_MAX = 100;
const FIRST_NAME_MAX = 60;

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
  const { lead, profile } = prompt;
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
        args: { profileUrl: lead.profileUrl, message: linkedinMessage(lead.name, profile).slice(0, MESSAGE_MAX_LENGTH) },
        reason: 'Send the lead a short, polite and personalised LinkedIn message, as this task asks.',
      };
    case 'SendEmail':
      return prompt.email === null
        ? null
        : {
            action: 'send_email',
            args: { to: prompt.email, ...email(lead.name, profile) },
            reason: 'Send the lead a short, polite and personalised email, as this task asks.',
          };
  }
}

function linkedinMessage(name: string, profile: Profile): string {
  const role = roleOf(profile);
  const noticed = role ? `I came across your profile and was impressed by your work ${role}.` : 'I came across your profile.';
  return `Hi ${firstName(name)}, ${noticed} I'd love to connect and share a few ideas that might be useful to you. Best regards`;
}

function email(name: string, profile: Profile): { subject: string; body: string } {
  const who = firstName(name);
  const company = profileText(profile.company);
  const role = roleOf(profile);
  const subject = company ? `A quick hello for ${who} at ${company}` : `A quick hello for ${who}`;
  const noticed = role ? `I came across your profile and was impressed by your work ${role}.` : 'I came across your profile.';
  const body = [
    `Hi ${who},`,
    `${noticed} I'd love to share a few ideas that might be useful to you and hear how you approach things.`,
    'Would you be open to a short chat in the coming weeks?',
    'Best regards',
  ].join('\n\n');
  return { subject, body };
}

/** "as CTO at Acme", "as CTO", "at Acme", or '' when the look-up found neither. */
function roleOf(profile: Profile): string {
  const title = profileText(profile.title);
  const company = profileText(profile.company);
  return [title && `as ${title}`, company && `at ${company}`].filter(Boolean).join(' ');
}

function profileText(value: string | undefined): string {
  return (value ?? '').replace(/\s+/g, ' ').trim().slice(0, PROFILE_TEXT_MAX).trim();
}

/** The first word of the name that starts with a letter, without quotes or brackets around it. */
function firstName(name: string): string {
  const word = /[\p{L}\p{M}][\p{L}\p{M}\p{N}'’.-]*/u.exec(name)?.[0].replace(/['’.-]+$/u, '');
  return word ? word.slice(0, FIRST_NAME_MAX) : 'there';
}

/**
 * Reads the lines of `outreachUserPrompt`. Names and scraped values are rendered on one
 * line each, so a label at the start of a line is always the prompt's own.
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
  const target = /^(.*) \((\S+)\)$/.exec(field('- Target Lead:') ?? '');
  const profileUrl = target && canonicalProfileUrl(target[2]);
  const lastError = field('- Last error:');
  const remaining = field('- Daily quota remaining:');
  const cooldown = Number(/"wait_cooldown" with durationHours = (\d+(?:\.\d+)?)$/.exec(field('- If quota = 0,') ?? '')?.[1]);
  const secrets = field('Session secrets:');
  return {
    campaignId,
    taskType: TASK_TYPES.find((known) => known === type) ?? null,
    lastError: lastError === null || lastError === 'none' ? null : lastError,
    lead: target && profileUrl ? { name: target[1], profileUrl } : null,
    email: canonicalEmail(field('- Lead email:')),
    profile: profileOf(field('- Lead profile:')),
    quotaRemaining: remaining !== null && /^\d+$/.test(remaining) ? Number(remaining) : null,
    cooldownHours: cooldown >= 0.01 && cooldown <= COOLDOWN_MAX_HOURS ? cooldown : null,
    tools,
    secrets:
      secrets === null || secrets === 'none'
        ? []
        : secrets
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
  };
}

/** `title: CTO; company: Acme` → { title: 'CTO', company: 'Acme' }; a `; ` inside a value stays in it. */
function profileOf(line: string | null): Profile {
  if (line === null || line === 'not looked up yet' || line === 'nothing found') return {};
  const fields = new Map<string, string>();
  for (const part of line.split(/; (?=[A-Za-z_]+: )/)) {
    const match = /^([A-Za-z_]+): (.*)$/.exec(part);
    if (match && !fields.has(match[1])) fields.set(match[1], match[2]);
  }
  return { title: fields.get('title'), company: fields.get('company') };
}
