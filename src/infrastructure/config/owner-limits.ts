import type { ActionKind } from '../../domain/outreach/outreach-task';
import type { SettingValues } from './settings';

/**
 * OUTREACH_OWNER_LIMITS over its aliases, OUTREACH_OWNER_DAILY_* and OUTREACH_OWNER_WEEKLY_* (a kind and window it names wins).
 * @param invalid throws the start's error for OUTREACH_OWNER_LIMITS (ConfigError), with the problem.
 */
export function ownerLimits(
  values: SettingValues,
  invalid: (problem: string) => never,
): {
  ownerDailyLimits: Record<ActionKind, number>;
  ownerWeeklyLimits: Record<ActionKind, number>;
} {
  const daily: Record<ActionKind, number> = {
    profile_lookup: values.OUTREACH_OWNER_DAILY_PROFILE_LOOKUPS,
    linkedin_message: values.OUTREACH_OWNER_DAILY_LINKEDIN_MESSAGES,
    email: values.OUTREACH_OWNER_DAILY_EMAILS,
  };
  const weekly: Record<ActionKind, number> = {
    profile_lookup: values.OUTREACH_OWNER_WEEKLY_PROFILE_LOOKUPS,
    linkedin_message: values.OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES,
    email: values.OUTREACH_OWNER_WEEKLY_EMAILS,
  };
  for (const entry of values.OUTREACH_OWNER_LIMITS ?? []) {
    const [kind, window, raw] = entry.split(':');
    const max = Number(raw);
    const most = window === 'day' ? 100_000 : 700_000;
    if (max > most) invalid(`${entry}: a ${window}'s max is at most ${most}`);
    (window === 'day' ? daily : weekly)[kind] = max;
  }
  return { ownerDailyLimits: daily, ownerWeeklyLimits: weekly };
}
