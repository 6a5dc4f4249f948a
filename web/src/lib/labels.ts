import type { AuditRow, CampaignTask } from '../api';
import type { Tone } from '../ui';

/** Human names for what the API names by type: shown instead of SendLinkedInMessage or InProgress. */
export const TASK_KIND_LABELS = {
  ScrapeProfile: 'Look up profile',
  SendLinkedInMessage: 'LinkedIn message',
  SendEmail: 'Email',
};

/** A task type's human name; a type a channel added (SendSms …) is shown as the API names it. */
export function taskKindLabel(type: CampaignTask['type']): string {
  return Object.hasOwn(TASK_KIND_LABELS, type) ? TASK_KIND_LABELS[type as keyof typeof TASK_KIND_LABELS] : type;
}

export const TASK_STATUS: Record<string, { label: string; tone: Tone }> = {
  Pending: { label: 'To do', tone: 'neutral' },
  InProgress: { label: 'Running', tone: 'info' },
  AwaitingReview: { label: 'Awaiting review', tone: 'accent' },
  Completed: { label: 'Done', tone: 'success' },
  Failed: { label: 'Failed', tone: 'danger' },
  Cancelled: { label: 'Cancelled', tone: 'warning' },
};

export const CAMPAIGN_STATUS: Record<string, { label: string; tone: Tone }> = {
  draft: { label: 'Draft', tone: 'neutral' },
  active: { label: 'Running', tone: 'info' },
  paused: { label: 'Paused', tone: 'warning' },
  completed: { label: 'Completed', tone: 'success' },
};

export const AUDIT_STATUS: Record<string, { label: string; tone: Tone }> = {
  pending: { label: 'Pending', tone: 'info' },
  succeeded: { label: 'Succeeded', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  rejected: { label: 'Rejected', tone: 'warning' },
  unknown: { label: 'Unknown outcome', tone: 'warning' },
  confirmation_required: { label: 'Awaiting confirmation', tone: 'accent' },
  confirmation_requested: { label: 'Awaiting confirmation', tone: 'accent' },
};

/** Where an audited action came from. */
export const SOURCE_LABELS: Record<AuditRow['source'], string> = {
  chat: 'Chat',
  mcp: 'MCP',
  outreach: 'Outreach',
  admin: 'Admin',
  account: 'Account',
  api: 'REST API',
};

/**
 * What an audited action did, in a person's words ("Delete a task" for delete_task), the
 * outreach ones as the campaign timeline names them. A tool missing here (a newer server's)
 * is shown by its own name: see `toolLabel`.
 */
export const TOOL_LABELS: Record<string, string> = {
  add_task: 'Add a task',
  list_tasks: 'Read your tasks',
  complete_task: 'Complete a task',
  update_task: 'Change a task',
  delete_task: 'Delete a task',
  linkedin_scrape_profile: TASK_KIND_LABELS.ScrapeProfile,
  linkedin_send_message: TASK_KIND_LABELS.SendLinkedInMessage,
  send_email: TASK_KIND_LABELS.SendEmail,
  wait_cooldown: 'Wait before the next step',
  complete_campaign: 'Complete a campaign',
  create_access_token: 'Make an access token',
  revoke_access_token: 'Revoke an access token',
  access_token_new_address: 'Access token used from a new address',
  grant_oauth_access: 'Connect an app',
  revoke_oauth_grant: 'Disconnect an app',
  oauth_token_replayed: "An app's used token presented again",
  'account.audit_receipt': 'Get a receipt',
  grant_admin: 'Make someone an admin',
  revoke_admin: 'Take back the admin role',
  change_policy: 'Change the policy',
};

/** The tool's label, or null when the console has none for it (the tool's own name is shown instead). */
export const toolLabel = (tool: string): string | null => (Object.hasOwn(TOOL_LABELS, tool) ? TOOL_LABELS[tool] : null);

export const PRIORITY_TONE: Record<string, Tone> = { high: 'danger', medium: 'neutral', low: 'info' };

/** A label for a value the tables above may not know yet (a newer server): its own words. */
export const labelOf = (table: Record<string, { label: string; tone: Tone }>, value: string): { label: string; tone: Tone } =>
  table[value] ?? { label: value, tone: 'neutral' };

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A policy's effects as a call's fate: `limit` in a report means a limit stopped the call. */
export const POLICY_EFFECT: Record<string, { label: string; tone: Tone }> = {
  allow: { label: 'Allowed', tone: 'success' },
  'ask-person': { label: 'Asks the person', tone: 'accent' },
  'ask-reviewer': { label: 'Needs a reviewer', tone: 'accent' },
  limit: { label: 'Over a limit', tone: 'warning' },
  deny: { label: 'Denied', tone: 'danger' },
};
