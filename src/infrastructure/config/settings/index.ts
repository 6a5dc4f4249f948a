import { z } from 'zod';
import { SERVER_SETTINGS } from './server';
import { DATABASE_SETTINGS } from './database';
import { AUTHENTICATION_SETTINGS } from './authentication';
import { CHAT_SETTINGS } from './chat';
import { LANGUAGE_MODEL_SETTINGS } from './language-models';
import { OUTREACH_SETTINGS } from './outreach';
import { LIMIT_SETTINGS } from './limits';
import { NOTIFICATION_SETTINGS } from './notifications';
import { LOGGING_SETTINGS } from './logging';
import { RETENTION_SETTINGS } from './retention';
import { WEBHOOK_SETTINGS } from './webhooks';
import { type Setting } from './setting';

/** Every variable loadConfig reads, in the order of docs/configuration.md; a bad value is reported in this order too. */
export const SETTINGS = {
  ...SERVER_SETTINGS,
  ...DATABASE_SETTINGS,
  ...AUTHENTICATION_SETTINGS,
  ...CHAT_SETTINGS,
  ...LANGUAGE_MODEL_SETTINGS,
  ...OUTREACH_SETTINGS,
  ...NOTIFICATION_SETTINGS,
  ...LIMIT_SETTINGS,
  ...RETENTION_SETTINGS,
  ...WEBHOOK_SETTINGS,
  ...LOGGING_SETTINGS,
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** The parsed values: a setting with a default always has one. */
export type SettingValues = {
  readonly [K in SettingName]: (typeof SETTINGS)[K] extends { readonly default: string }
    ? z.output<(typeof SETTINGS)[K]['schema']>
    : z.output<(typeof SETTINGS)[K]['schema']> | undefined;
};

const settingsSchema = z.object(
  Object.fromEntries(
    Object.entries(SETTINGS).map(([name, setting]: [string, Setting]) => [
      name,
      setting.default !== undefined ? setting.schema.prefault(setting.default) : setting.schema.optional(),
    ]),
  ),
);

export type SettingsResult =
  | { readonly success: true; readonly values: SettingValues }
  | { readonly success: false; readonly variable: SettingName; readonly problem: string };

/**
 * Parses every setting, blank values counting as unset and a provider's settings read only
 * when LLM_PROVIDER names it; a failure is the first bad variable in SETTINGS's order.
 */
export function parseSettings(env: Readonly<Record<string, string | undefined>>): SettingsResult {
  const provider = env.LLM_PROVIDER?.trim() || 'offline';
  const input: Record<string, string> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const value = env[name]?.trim();
    if (value && (setting.provider === undefined || setting.provider === provider)) input[name] = value;
  }
  const parsed = settingsSchema.safeParse(input);
  if (parsed.success) return { success: true, values: parsed.data as SettingValues };
  const [issue] = parsed.error.issues;
  return { success: false, variable: issue.path[0] as SettingName, problem: issue.message };
}
