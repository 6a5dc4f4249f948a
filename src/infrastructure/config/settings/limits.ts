import { wholeNumber } from './rules';
import { type Setting } from './setting';

/** The Limits section of docs/configuration.md, in its order. */
export const LIMIT_SETTINGS = {
  AUTH_RATE_LIMIT_PER_MINUTE: {
    section: 'Limits',
    ...wholeNumber(1, 100_000),
    default: '20',
    doc: 'requests per client address per minute, counted separately on `POST /auth/register`, `POST /auth/login`, `POST /auth/password`, `GET /unsubscribe/:token` and `POST /unsubscribe/:token`. 429 `HTTP.RATE_LIMITED` with `Retry-After`',
  },
  SIGN_IN_ATTEMPTS_PER_ACCOUNT: {
    section: 'Limits',
    ...wholeNumber(1, 10_000),
    default: '10',
    doc: "`POST /auth/login` and `POST /auth/password` attempts per account (the email, trimmed and lower-cased, or the token's account), counted together, per 15 minutes, from any address. The block lasts 15 minutes and doubles (up to 64×) for each block that follows another within 24 hours. During a block the right password gets the same 429 (`Retry-After-sign-in`)",
  },
  CHAT_RATE_LIMIT_PER_MINUTE: {
    section: 'Limits',
    ...wholeNumber(1, 1_000_000),
    default: '60',
    doc: 'chat turns per user per minute, `/chat` and `/chat/stream` together. The refused turn stores nothing (`Retry-After`, `Retry-After-chat`)',
  },
  MCP_RATE_LIMIT_PER_MINUTE: {
    section: 'Limits',
    ...wholeNumber(1, 1_000_000),
    default: '120',
    doc: 'requests to `/mcp` per user per minute, each one counted whatever it carries: a call, a notification, a response, a refused batch, `GET` (the event stream) and `DELETE` ([MCP](mcp.md#one-message-per-request-and-every-request-counted)) (`Retry-After-mcp`)',
  },
  API_RATE_LIMIT_PER_MINUTE: {
    section: 'Limits',
    ...wholeNumber(1, 1_000_000),
    default: '600',
    doc: 'requests per user per minute to every route a bearer token opens other than `/mcp` and a chat turn (`CHAT_RATE_LIMIT_PER_MINUTE`): `/api/:userId/…` (tasks, conversations, tokens, grants, campaigns, cycles, drafts, do-not-contact, notifications), `/admin/…`, `/oauth/requests/…`, `GET /auth/me`, `POST /auth/refresh` and `POST /auth/password`, all counted together, reads and refused requests included. Counted before the route does anything, so a refused request past it writes no audit row. 429 `HTTP.RATE_LIMITED` with `Retry-After` and `Retry-After-api` ([security](security.md#abuse-and-failure))',
  },
} as const satisfies Record<string, Setting>;
