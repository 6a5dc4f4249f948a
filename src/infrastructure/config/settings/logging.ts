import { oneOf, secret } from './rules';
import { LOG_LEVELS, type Setting } from './setting';

/** The Logging and metrics section of docs/configuration.md, in its order. */
export const LOGGING_SETTINGS = {
  LOG_LEVEL: {
    section: 'Logging and metrics',
    ...oneOf(LOG_LEVELS),
    default: 'info',
    doc: "pino's level, for the server and the worker. The operator's command prints only its own output",
  },
  METRICS_TOKEN: {
    section: 'Logging and metrics',
    ...secret(16),
    defaultText: 'unset: `/metrics` is open',
    doc: '`GET /metrics` then needs `Authorization: Bearer <token>` (compared in constant time), else 401',
  },
} as const satisfies Record<string, Setting>;
