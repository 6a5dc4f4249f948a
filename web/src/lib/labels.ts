import type { CampaignTask } from '../api';
import type { Tone } from '../ui';

/** Human names for what the API names by type: shown instead of SendLinkedInMessage or InProgress. */
export const TASK_KIND_LABELS: Record<CampaignTask['type'], string> = {
  ScrapeProfile: 'Look up profile',
  SendLinkedInMessage: 'LinkedIn message',
  SendEmail: 'Email',
};

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
