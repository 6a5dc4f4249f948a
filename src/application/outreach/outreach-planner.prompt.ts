import { ACTION_CONTRACTS, type ActionName } from '../../domain/outreach/actions';
import { availableActions, type CycleContext, type RecentResult } from '../../domain/outreach/planning';
import { TASK_ACTION } from '../../domain/outreach/outreach-task';
import { hoursUntilReset, remainingOf } from '../../domain/outreach/quota';

/** The planner's instructions: exactly one JSON action per cycle, from Bridle's six actions and their arguments. */
export const OUTREACH_SYSTEM_PROMPT = `You are a LinkedIn outreach automation agent. Your role is to propose ONE atomic action based on the current task context provided by the Controller.

CRITICAL RULES:
1. Output ONLY valid JSON with fields: action, args, reason
2. Propose EXACTLY ONE action per response (not a sequence)
3. DO NOT assume conversation history exists - all context is in the current message
4. Check daily quota before proposing scraping/messaging actions
5. If quota exceeded, propose "wait_cooldown" action
6. Act only on the task's target lead; if the last error is SESSION_EXPIRED, propose "refresh_session"

Available tools:
${(Object.keys(ACTION_CONTRACTS) as ActionName[]).map((name) => `- ${name} ${argsOf(name)}: ${ACTION_CONTRACTS[name].description}`).join('\n')}

Output format:
{
  "action": "tool_name",
  "args": { /* tool-specific arguments */ },
  "reason": "1-2 sentence rationale (10-200 characters)"
}`;

/** The planner's message for one cycle, filled from the database state (campaign, lead, task, quota, recent results). */
export function outreachUserPrompt(context: CycleContext, now: Date): string {
  const resetHours = hoursUntilReset(now);
  const { quota } = context;
  const lines: string[] = ['CURRENT TASK:', `- Campaign: ${oneLine(context.campaign.name)} (${context.campaign.id})`];
  if (context.kind === 'task') {
    const { task, lead } = context;
    lines.push(
      `- Task ID: ${task.id}`,
      `- Task Type: ${task.type}`,
      `- Attempt: ${task.attempts}`,
      `- Last error: ${task.lastError ?? 'none'}`,
      `- Target Lead: ${oneLine(lead.name)} (${lead.linkedinUrl})`,
      `- Lead email: ${lead.email ?? 'none'}`,
      `- Lead profile: ${profileLine(lead.profile)}`,
    );
  } else {
    lines.push('- Task ID: none', `- Open tasks: ${context.openTasks} (${context.finishedTasks} finished)`);
  }
  lines.push(
    '',
    'DATABASE STATE (reloaded every cycle):',
    `- Leads scraped today: ${quota.profile_lookup.campaign.used}/${quota.profile_lookup.campaign.limit}`,
    `- Messages sent today: ${quota.linkedin_message.campaign.used}/${quota.linkedin_message.campaign.limit}`,
    `- Emails sent today: ${quota.email.campaign.used}/${quota.email.campaign.limit}`,
  );
  if (context.kind === 'task') {
    lines.push(`- Daily quota remaining: ${remainingOf(quota, TASK_ACTION[context.task.type].kind)}`);
  }
  lines.push(
    `- Quota resets in: ${resetHours} hours (next UTC midnight)`,
    '',
    'PREVIOUS EXECUTION RESULTS (last 3 completed tasks):',
    ...(context.recent.length ? context.recent.map(recentLine) : ['- none yet']),
    '',
    `Available tools: ${availableActions(context).join(', ')}`,
  );
  if (context.kind === 'task') lines.push(`Session secrets: ${context.secretNames.join(', ') || 'none'}`);
  lines.push(
    '',
    'CONSTRAINTS:',
    '- Propose ONLY ONE action',
    '- Check quota before proposing scraping/messaging',
    `- If quota = 0, propose "wait_cooldown" with durationHours = ${resetHours}`,
  );
  lines.push(
    context.kind === 'task'
      ? '- Act only on the target lead above'
      : `- Every task is finished: propose "complete_campaign" with campaignId = ${context.campaign.id}`,
  );
  lines.push('', 'Propose action (JSON only, no markdown):');
  return lines.join('\n');
}

function argsOf(name: ActionName): string {
  return `{${Object.keys(ACTION_CONTRACTS[name].args.properties ?? {})
    .filter((field) => !(name === 'wait_cooldown' && field === 'reason'))
    .join(', ')}}`;
}

function profileLine(profile: Readonly<Record<string, unknown>> | null): string {
  if (!profile) return 'not looked up yet';
  const known = Object.entries(profile).filter(([, value]) => typeof value === 'string' && value !== '');
  return known.length ? known.map(([field, value]) => `${field}: ${oneLine(String(value))}`).join('; ') : 'nothing found';
}

function recentLine(result: RecentResult): string {
  return `- ${result.type} for ${oneLine(result.leadName)} - ${result.status} (${result.durationMs}ms)`;
}

/** Names and scraped text on one line, so that none of them can start a line of their own. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
