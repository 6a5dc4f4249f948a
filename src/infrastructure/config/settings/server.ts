import { baseUrl, text, trustProxy, wholeNumber } from './rules';
import { type Setting } from './setting';

/** The Server section of docs/configuration.md, in its order. */
export const SERVER_SETTINGS = {
  NODE_ENV: {
    section: 'Server',
    ...text('any'),
    defaultText: 'unset',
    doc: '`production` (exactly: not trimmed) makes `JWT_SECRET` and `PUBLIC_BASE_URL` required, and `AUDIT_SIGNING_KEY` with `DATABASE_URL`. It changes nothing else.',
  },
  HOST: { section: 'Server', ...text('any'), default: '0.0.0.0', doc: 'interface to listen on' },
  PORT: {
    section: 'Server',
    ...wholeNumber(0, 65_535),
    default: '3000',
    doc: 'HTTP port. `0` picks a free one (the start-up log line names it)',
  },
  SHUTDOWN_GRACE_MS: {
    section: 'Server',
    ...wholeNumber(0, 600_000),
    default: '10000',
    doc: 'after SIGTERM or SIGINT, how long requests in flight may run before their connections are cut, and how long a worker process (`dist/worker.js`) may finish its cycle before it stops anyway (exit 1) ([shutdown](operations.md#shutdown-and-rolling-restarts))',
  },
  PUBLIC_BASE_URL: {
    section: 'Server',
    ...baseUrl(),
    also: '. Required when `NODE_ENV=production`',
    defaultText: '`http://localhost:<PORT>`',
    doc: 'where people reach this service: the start of the unsubscribe link in every outreach email (`<PUBLIC_BASE_URL>/unsubscribe/<token>`, [outreach](outreach.md#unsubscribe)), of every link in notification mail (`<PUBLIC_BASE_URL>/#review?draft=<id>`, [notifications](notifications.md)), and the OAuth issuer and token audience (`<PUBLIC_BASE_URL>/mcp`) for MCP clients ([security](security.md#oauth-for-mcp-clients)). Use the `https://` address people and mail recipients can open; every replica and worker needs the same value: a replica with another one issues tokens the others refuse, and on `http://` (other than localhost) OAuth for MCP clients is off. Unset, the start is refused in production',
  },
  TRUST_PROXY: {
    section: 'Server',
    ...trustProxy(),
    default: 'false',
    doc: "which proxies' `X-Forwarded-For` names the client. That address is what the per-address rate limit counts. `true` is refused, because every client could then pick its own rate-limit key",
  },
} as const satisfies Record<string, Setting>;
