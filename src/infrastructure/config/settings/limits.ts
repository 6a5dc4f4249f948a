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
    doc: 'JSON-RPC requests to `POST /mcp` per user per minute, one by one: batches are refused, notifications and responses are not counted ([MCP](mcp.md#one-message-per-request-and-each-call-counted)) (`Retry-After-mcp`)',
  },
} as const satisfies Record<string, Setting>;
