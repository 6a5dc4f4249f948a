import { type z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LLM_PROVIDERS = ['offline', 'openai', 'azure-openai', 'gemini'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

/** The `##` headings of docs/configuration.md whose tables `npm run config:docs` writes, in order. */
export const SETTINGS_SECTIONS = [
  'Server',
  'Database',
  'Authentication',
  'Chat, agent and MCP',
  'Language models',
  'Outreach',
  'Notifications',
  'Limits',
  'Retention',
  'Webhooks',
  'Logging and metrics',
] as const;

/**
 * One environment variable: how it is parsed, and its row in docs/configuration.md.
 * `schema` gets the value trimmed, and only when it is not blank; `default` is a value as the
 * environment would give it, parsed by the same schema.
 */
export interface Setting<T = unknown> {
  readonly section: (typeof SETTINGS_SECTIONS)[number];
  readonly schema: z.ZodType<T, string>;
  /** The docs' "allowed" column: written by the helper that made the schema, plus `also`. */
  readonly allowed: string;
  readonly also?: string;
  readonly default?: string;
  /** The docs' "default" column when it is not `default` itself: computed, or what unset means. */
  readonly defaultText?: string;
  /** Read only when LLM_PROVIDER names this provider; unread, it is neither checked nor used. */
  readonly provider?: LlmProvider;
  readonly doc: string;
}
