import { createPrivateKey } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { MCP_DESTRUCTIVE_TOOL_MODES } from '../../domain/agent/confirmation';
import { DEFAULT_SAMPLING, REPLY_TARGET_CHARS, TEMPERATURE_RANGE } from '../../domain/agent/limits';

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
  'Limits',
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

type Rule<T> = Pick<Setting<T>, 'schema' | 'allowed'>;

const group = (value: number): string => value.toLocaleString('en-US').replaceAll(',', ' ');

/** Plain digits only: `1e3`, `-1` and `0x10` are refused. */
function wholeNumber(min: number, max: number): Rule<number> {
  return {
    schema: z
      .string()
      .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max, {
        error: (issue) => `must be a whole number from ${min} to ${max}, got "${String(issue.input)}"`,
      })
      .transform(Number),
    allowed: `${group(min)}–${group(max)}`,
  };
}

function decimal(max?: number): Rule<number> {
  return {
    schema: z
      .string()
      .refine((raw) => /^\d+(\.\d+)?$/.test(raw), {
        error: (issue) => `must be a non-negative decimal number, got "${String(issue.input)}"`,
        abort: true,
      })
      .refine((raw) => max === undefined || Number(raw) <= max, {
        error: (issue) => `must be at most ${max}, got "${String(issue.input)}"`,
      })
      .transform(Number),
    allowed: max === undefined ? 'decimal ≥ 0' : `decimal 0–${group(max)}`,
  };
}

function oneOf<const T extends readonly [string, ...string[]]>(allowed: T): Rule<T[number]> {
  return {
    schema: z
      .string()
      .refine((raw) => allowed.includes(raw), {
        error: (issue) => `must be one of ${allowed.join(', ')}, got "${String(issue.input)}"`,
      })
      .transform((raw) => raw as T[number]),
    allowed: allowed.map((value) => `\`${value}\``).join(', '),
  };
}

function flag(): Rule<boolean> {
  const { schema, allowed } = oneOf(['true', 'false']);
  return { schema: schema.transform((value) => value === 'true'), allowed };
}

function text(allowed = 'text'): Rule<string> {
  return { schema: z.string(), allowed };
}

function pattern(regex: RegExp, problem: string, allowed: string): Rule<string> {
  return { schema: z.string().regex(regex, { error: problem }), allowed };
}

const httpUrl = (): Rule<string> => pattern(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// URL', '`http(s)://` URL');
const postgresUrl = (): Rule<string> =>
  pattern(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL', '`postgres://…` or `postgresql://…`');

/** Its value is never put in a message. */
function secret(minLength: number): Rule<string> {
  return {
    schema: z.string().min(minLength, { error: `must be at least ${minLength} characters long` }),
    allowed: `≥ ${minLength} characters`,
  };
}

/** Comma-separated, trimmed and lower-cased; blank entries are dropped. */
function list(allowed: string, entry?: { readonly regex: RegExp; readonly what: string }): Rule<ReadonlySet<string>> {
  return {
    schema: z.string().transform((raw, context) => {
      const entries = raw
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean);
      const bad = entry === undefined ? undefined : entries.find((item) => !entry.regex.test(item));
      if (bad !== undefined) context.addIssue({ code: 'custom', message: `contains "${bad}", which is not ${entry?.what}` });
      return new Set(entries);
    }),
    allowed,
  };
}

/** An http(s) origin with an optional path prefix; no query, fragment or user; a trailing slash is dropped. */
function baseUrl(): Rule<string> {
  return {
    schema: z
      .string()
      .regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/i, {
        error: (issue) => `must be an http:// or https:// URL with no query or fragment, got "${String(issue.input)}"`,
      })
      .transform((value) => value.replace(/(?<!\/)\/+$/, '')),
    allowed:
      'an `http://` or `https://` URL, with a path prefix if Bridle is served under one; no query, fragment or user; a trailing `/` is dropped',
  };
}

/**
 * `false` trusts no proxy (the socket's address is the client's); a number trusts that many
 * hops; otherwise a comma-separated list of addresses, CIDR ranges or Express's names. `true`
 * (trust anyone to say who the client is) is refused: every client could pick its own rate-limit key.
 */
function trustProxy(): Rule<boolean | number | string> {
  const hops = wholeNumber(0, 10).schema;
  return {
    schema: z.string().transform((value, context): boolean | number | string => {
      if (value === 'false') return false;
      if (/^\d+$/.test(value)) {
        const parsed = hops.safeParse(value);
        if (parsed.success) return parsed.data;
        context.addIssue({ code: 'custom', message: parsed.error.issues[0].message });
        return z.NEVER;
      }
      const entries = value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      const bad = entries.find((entry) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(entry));
      if (bad !== undefined || entries.length === 0) {
        const message = `must be false, a number of hops, or addresses/CIDRs/loopback; "${bad ?? value}" is none of them`;
        context.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return entries.join(',');
    }),
    allowed: '`false`; a number of hops 0–10; or a comma list of IP addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`',
  };
}

/** An Ed25519 private key, PEM or base64 of PKCS8 DER, as PKCS8 PEM. */
function ed25519PrivateKey(): Rule<string> {
  return {
    schema: z.string().transform((value, context) => {
      let key;
      try {
        key = value.startsWith('-----BEGIN')
          ? createPrivateKey(value)
          : createPrivateKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'pkcs8' });
      } catch {
        key = undefined;
      }
      if (key?.asymmetricKeyType !== 'ed25519') {
        context.addIssue({ code: 'custom', message: 'must be an Ed25519 private key: PEM, or base64 of PKCS8 DER' });
        return z.NEVER;
      }
      return key.export({ format: 'pem', type: 'pkcs8' }) as string;
    }),
    allowed: 'an Ed25519 private key, PEM or base64 of PKCS8 DER',
  };
}

/** Every variable loadConfig reads, in the order of docs/configuration.md; a bad value is reported in this order too. */
export const SETTINGS = {
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
    doc: 'where people reach this service: the start of the unsubscribe link in every outreach email (`<PUBLIC_BASE_URL>/unsubscribe/<token>`, [outreach](outreach.md#unsubscribe)), and the OAuth issuer and token audience (`<PUBLIC_BASE_URL>/mcp`) for MCP clients ([security](security.md#oauth-for-mcp-clients)). Use the `https://` address people and mail recipients can open; every replica and worker needs the same value: a replica with another one issues tokens the others refuse, and on `http://` (other than localhost) OAuth for MCP clients is off. Unset, the start is refused in production',
  },
  TRUST_PROXY: {
    section: 'Server',
    ...trustProxy(),
    default: 'false',
    doc: "which proxies' `X-Forwarded-For` names the client. That address is what the per-address rate limit counts. `true` is refused, because every client could then pick its own rate-limit key",
  },

  DATABASE_URL: {
    section: 'Database',
    ...postgresUrl(),
    defaultText: 'unset: embedded PGlite',
    doc: 'a PostgreSQL server (13 or later). Required for more than one process ([0001](decisions/0001-pglite-and-postgresql.md))',
  },
  BRIDLE_DATA_DIR: {
    section: 'Database',
    schema: z.string().transform((path) => resolve(path)),
    allowed: 'a path',
    default: './data',
    defaultText: '`./data` (made absolute)',
    doc: 'holds the embedded database (`pgdata/`), its lock (`bridle.lock`) and, when `JWT_SECRET` or `AUDIT_SIGNING_KEY` is unset, the generated secret (`jwt-secret`) or key (`audit-signing-key.pem`). They are written there even with `DATABASE_URL`',
  },
  // Checked on the embedded database too, so a bad value fails before the move to a server.
  DATABASE_POOL_MAX: {
    section: 'Database',
    // Two connections at least: the migration lock holds one while the migrations run on another.
    ...wholeNumber(2, 1_000),
    default: '10',
    doc: "connections each process (replica, worker, operator's command) may hold to the PostgreSQL server. Replicas × this, plus workers × this, must stay under the server's `max_connections` with room to spare ([sizing](operations.md#sizing-the-connection-pool)). At least 2: the migration lock holds one while the migrations run on another. The embedded database always has one",
  },
  DATABASE_LISTEN_URL: {
    section: 'Database',
    ...postgresUrl(),
    defaultText: '`DATABASE_URL`',
    doc: 'where each server process keeps its one `LISTEN` connection (the fleet bus: [0011](decisions/0011-mcp-sessions-in-the-database.md)). Point it past a pooler in transaction mode, which cannot hold a `LISTEN`: at the server itself',
  },
  DATABASE_PREPARED_STATEMENTS: {
    section: 'Database',
    ...flag(),
    default: 'true',
    doc: "`true`: each statement text is prepared under a name once per connection, so the server parses and plans it once. `false`: every statement is sent unnamed (its values still as parameters), for a pooler in transaction mode that cannot keep named statements (PgBouncer before 1.21). Costs a parse and a plan per call: twice PostgreSQL's CPU a chat turn in a benchmark ([poolers](operations.md#growing-past-one-postgresql))",
  },

  JWT_SECRET: {
    section: 'Authentication',
    ...secret(32),
    also: '. Required when `NODE_ENV=production`',
    defaultText: 'unset: generated once into `BRIDLE_DATA_DIR/jwt-secret` (mode 600) with a warning',
    doc: 'HS256 signing key of access tokens. The key of unsubscribe links is derived from it ([security](security.md#unsubscribe-links)). Every replica and worker must share it; changing it ends every session and voids the links in emails already sent',
  },
  JWT_EXPIRES_IN: {
    section: 'Authentication',
    ...wholeNumber(60, 30 * 24 * 3600),
    default: '3600',
    doc: 'access-token lifetime in seconds',
  },
  SESSION_MAX_AGE: {
    section: 'Authentication',
    ...wholeNumber(60, 30 * 24 * 3600),
    also: ', at least `JWT_EXPIRES_IN`',
    defaultText: '`43200`, or `JWT_EXPIRES_IN` when longer',
    doc: 'seconds after signing in that a console session may still be renewed (`POST /auth/refresh`); then its person signs in again ([security](security.md#identity-and-access))',
  },
  SIGN_UP: {
    section: 'Authentication',
    ...oneOf(['open', 'closed']),
    default: 'open',
    doc: '`closed`: `POST /auth/register` answers 403 `AUTH.SIGN_UP_CLOSED`. `npm run admin -- add-user` still creates accounts',
  },

  AGENT_MAX_ITERATIONS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 20),
    default: '5',
    doc: 'model calls per chat turn that may use tools. If the model still wants tools after the last one, one more call without tools words the answer (`status: max_iterations_reached`, a `warning`)',
  },
  AGENT_MAX_TOOL_CALLS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 50),
    default: '10',
    doc: 'tool calls per chat turn. Calls past it are refused (`LIMIT_REACHED`), and the answer is worded as at the iteration limit (`finishReason: max_tool_calls`)',
  },
  AGENT_TURN_TIMEOUT_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1_000, 300_000),
    default: '30000',
    doc: 'deadline of a whole chat turn, model and tools included (`finishReason: timeout`). The crash sweeper waits twice this long before it settles a turn',
  },
  AGENT_TOOL_TIMEOUT_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 120_000),
    default: '10000',
    doc: 'deadline of one tool call (tool error `TIMEOUT`)',
  },
  AGENT_CONTEXT_TOKENS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1_000, 2_000_000),
    default: '8000',
    doc: 'estimated tokens (4 characters each) one chat model request should hold. The stored conversation gets what the instructions, the summary and the new message leave of two thirds of it. Older exchanges past that are summarised by the model',
  },
  AGENT_HISTORY_WINDOW: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(2, 1_000),
    default: '100',
    doc: 'stored messages read per turn at most. Reaching it also starts a summary',
  },
  AGENT_MAX_TOOL_ARGUMENT_BYTES: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(256, 64 * 1024),
    default: String(16 * 1024),
    doc: "one tool call's argument text in UTF-8 bytes. Past it the call is refused (`ARGUMENTS_TOO_LARGE`) and only its size and SHA-256 are recorded",
  },
  AGENT_MAX_REPLY_CHARS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 8_000),
    default: String(REPLY_TARGET_CHARS),
    doc: "the model's words in one reply. Past it they are cut at a word with `…`, and the turn carries a `warning`",
  },
  SUPPORT_CONTACT: {
    section: 'Chat, agent and MCP',
    ...pattern(/^\P{Cc}{1,200}$/u, 'must be one line of at most 200 characters', 'one line, ≤ 200 characters'),
    defaultText: 'unset: "contact support"',
    doc: 'where people get help (an email address or a URL), named by the sentence the assistant says after an unexpected failure: "An unexpected error occurred. Please try again, or contact support at `<SUPPORT_CONTACT>` if it keeps happening."',
  },
  CHAT_SWEEP_INTERVAL_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 3_600_000),
    default: '60000',
    doc: 'how often each server process settles chat turns and tool calls cut off by a crash (also once at start)',
  },
  AUDIT_SEAL_INTERVAL_MS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(10, 60_000),
    default: '500',
    doc: "how often each process (server or worker) links appended audit rows onto the hash chain; one process seals at a time, the others find the sealer's lock taken and leave ([audit log](audit-log.md))",
  },
  AUDIT_SIGNING_KEY: {
    section: 'Chat, agent and MCP',
    ...ed25519PrivateKey(),
    also: '. Required with `DATABASE_URL` when `NODE_ENV=production`',
    defaultText: 'unset: generated once into `BRIDLE_DATA_DIR/audit-signing-key.pem` (mode 600), said once in the log',
    doc: "signs the audit chain's checkpoints ([0012](decisions/0012-signed-audit-checkpoints.md)). Every replica and worker must share it; verify trusts only this key. Keep a copy: without it, new checkpoints cannot be signed by the key your auditors know",
  },
  AUDIT_CHECKPOINT_ROWS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(100, 10_000_000),
    default: '10000',
    doc: 'a signed checkpoint after this many new links…',
  },
  AUDIT_CHECKPOINT_MINUTES: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 7 * 24 * 60),
    default: '60',
    doc: '…or this many minutes, whichever comes first. The default verify walks only the links since the newest checkpoint',
  },
  MCP_ALLOWED_HOSTS: {
    section: 'Chat, agent and MCP',
    ...list('host names without port'),
    default: 'localhost,127.0.0.1,[::1]',
    doc: '`Host` values `POST /mcp` answers to (a DNS-rebinding guard). Add your public host name when deployed',
  },
  MCP_ALLOWED_ORIGINS: {
    section: 'Chat, agent and MCP',
    ...list('origins, e.g. `https://app.example.com`'),
    default: '',
    defaultText: 'empty',
    doc: 'browser `Origin`s allowed on `POST /mcp` besides those on an allowed host. A request without `Origin` is not checked',
  },
  MCP_SESSION_IDLE_MINUTES: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 24 * 60),
    default: '30',
    doc: 'a stateful `/mcp` session unused this long is closed; its client starts a new one ([MCP](mcp.md))',
  },
  MCP_SESSIONS_PER_USER: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 1_000),
    default: '10',
    doc: "open sessions per person; a new one closes that person's least recently used",
  },
  MCP_SESSIONS_MAX: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 100_000),
    default: '1000',
    doc: 'open sessions in this process; past it, a new session is 503 `MCP.SESSIONS_FULL`',
  },
  MCP_DESTRUCTIVE_TOOLS: {
    section: 'Chat, agent and MCP',
    ...oneOf(MCP_DESTRUCTIVE_TOOL_MODES),
    default: 'confirm-in-chat',
    doc: 'what `delete_task` does over `POST /mcp`. `confirm-in-chat`: the person is asked in their client when it can be (a session with elicitation); otherwise refused with the tool error `CONFIRMATION_REQUIRED`, and the question waits for the person in the console, at a link the error gives. `allow`: it runs at once, without the person',
  },
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(60, 24 * 3600),
    default: '3600',
    doc: 'lifetime of an OAuth access token Bridle issues to an MCP client. When it runs out the client refreshes it by itself ([security](security.md#oauth-for-mcp-clients))',
  },
  OAUTH_REFRESH_TOKEN_TTL_DAYS: {
    section: 'Chat, agent and MCP',
    ...wholeNumber(1, 365),
    default: '30',
    doc: 'lifetime of each refresh token. Every refresh returns a new one with a new lifetime, so a client in use stays connected; one left unused this long must ask the person again',
  },

  LLM_PROVIDER: {
    section: 'Language models',
    ...oneOf(LLM_PROVIDERS),
    default: 'offline',
    doc: '`offline`: a deterministic rule-based model (`src/infrastructure/llm/offline`) with no key and no network. `openai` also covers any OpenAI-compatible server',
  },
  OFFLINE_STREAM_WORD_DELAY_MS: {
    section: 'Language models',
    ...wholeNumber(0, 1_000),
    default: '15',
    provider: 'offline',
    doc: "the offline model streams its answers word by word with this pause between words, as a provider's tokens arrive (`POST …/chat/stream` and the console only; `0`: at once)",
  },
  OPENAI_API_KEY: {
    section: 'Language models',
    ...text(),
    provider: 'openai',
    doc: 'required with `openai`',
  },
  OPENAI_MODEL: {
    section: 'Language models',
    ...text(),
    provider: 'openai',
    doc: 'required with `openai` (e.g. `gpt-4o-mini`)',
  },
  OPENAI_BASE_URL: {
    section: 'Language models',
    ...httpUrl(),
    provider: 'openai',
    defaultText: "the SDK's (OpenAI)",
    doc: 'an OpenAI-compatible server, e.g. Ollama at `http://127.0.0.1:11434/v1`',
  },
  AZURE_OPENAI_API_KEY: {
    section: 'Language models',
    ...text(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai`',
  },
  AZURE_OPENAI_ENDPOINT: {
    section: 'Language models',
    ...httpUrl(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai`',
  },
  AZURE_OPENAI_DEPLOYMENT: {
    section: 'Language models',
    ...text(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai`. Decision logs name the deployment as the model',
  },
  AZURE_OPENAI_API_VERSION: {
    section: 'Language models',
    ...text(),
    provider: 'azure-openai',
    doc: 'required with `azure-openai` (e.g. `2024-10-21`)',
  },
  GEMINI_API_KEY: {
    section: 'Language models',
    ...text(),
    provider: 'gemini',
    doc: 'required with `gemini`',
  },
  GEMINI_MODEL: {
    section: 'Language models',
    ...text(),
    provider: 'gemini',
    doc: 'required with `gemini` (e.g. `gemini-2.5-flash`)',
  },
  GEMINI_BASE_URL: {
    section: 'Language models',
    ...httpUrl(),
    provider: 'gemini',
    defaultText: "the SDK's",
    doc: 'another Gemini API endpoint',
  },
  LLM_TIMEOUT_MS: {
    section: 'Language models',
    ...wholeNumber(1_000, 300_000),
    default: '20000',
    doc: "one attempt of one provider request, stream included. The turn's deadline still applies. Not used by `offline`",
  },
  LLM_MAX_RETRIES: {
    section: 'Language models',
    ...wholeNumber(0, 2),
    default: '2',
    doc: 'retries after a rate limit or a provider error, waiting for `retry-after` or backing off (250 ms, 500 ms). A streamed answer is retried only before its first piece of text',
  },
  LLM_RETRY_MAX_WAIT_MS: {
    section: 'Language models',
    ...wholeNumber(0, 60_000),
    default: '5000',
    doc: 'a `retry-after` longer than this is not waited for: the person is told at once',
  },
  LLM_TEMPERATURE: {
    section: 'Language models',
    ...decimal(TEMPERATURE_RANGE.max),
    default: String(DEFAULT_SAMPLING.temperature),
    doc: 'sampling temperature of chat model calls; a chat request may set its own (`temperature`, 0–2). Outreach planning always uses 0.3',
  },
  LLM_MAX_TOKENS: {
    section: 'Language models',
    ...wholeNumber(16, 32_768),
    default: String(DEFAULT_SAMPLING.maxTokens),
    doc: 'tokens one chat model call may write; a chat request may ask for fewer (`maxTokens`), never more. An answer cut there has `finishReason: length` and a `warning`. Outreach planning always uses 500',
  },
  LLM_PRICE_INPUT_PER_1K: {
    section: 'Language models',
    ...decimal(),
    also: '; set both prices or neither',
    doc: 'price per 1 000 prompt tokens. When both prices are set, `decision_logs.cost` is filled in, `/metrics` counts `bridle_model_cost_total`, and `CHAT_DAILY_COST_BUDGET` may be used',
  },
  LLM_PRICE_OUTPUT_PER_1K: {
    section: 'Language models',
    ...decimal(),
    also: '; set both prices or neither',
    doc: 'price per 1 000 completion tokens',
  },
  CHAT_DAILY_TOKEN_BUDGET: {
    section: 'Language models',
    ...wholeNumber(1_000, 1_000_000_000),
    defaultText: 'unset: no budget',
    doc: 'chat tokens per person per UTC day. Each model call of a turn (summaries included) first reserves its most on `token_ledger`: the prompt at 2 characters a token, plus its maximum output. It then settles to what the provider reported. A call the day cannot cover is not made, and the person is told kindly (`finishReason: budget_spent`). `GET /auth/me` shows `chatBudget`, and `/metrics` counts refusals as `bridle_quota_rejections_total{kind="chat_budget"}`. Outreach planning is not counted',
  },
  CHAT_DAILY_COST_BUDGET: {
    section: 'Language models',
    ...decimal(),
    also: '; needs both `LLM_PRICE_*`',
    defaultText: 'unset: no budget',
    doc: "the same, for cost in the prices' currency",
  },

  OUTREACH_WORKER: {
    section: 'Outreach',
    ...flag(),
    defaultText: '`true` on the embedded database, `false` with `DATABASE_URL`',
    doc: '`true` runs an outreach worker inside the server process, so a started campaign runs by itself after `npm start`. Beside a PostgreSQL server, run workers as their own processes (`node dist/worker.js` is always a worker)',
  },
  OUTREACH_OWNER_DAILY_PROFILE_LOOKUPS: {
    section: 'Outreach',
    ...wholeNumber(0, 100_000),
    default: '100',
    doc: "profile look-ups per owner per UTC day, across all their campaigns, on top of each campaign's own `dailyLimits` (50 each unless set). `0` stops that kind",
  },
  OUTREACH_OWNER_DAILY_LINKEDIN_MESSAGES: {
    section: 'Outreach',
    ...wholeNumber(0, 100_000),
    default: '100',
    doc: 'the same, for LinkedIn messages',
  },
  OUTREACH_OWNER_DAILY_EMAILS: {
    section: 'Outreach',
    ...wholeNumber(0, 100_000),
    default: '100',
    doc: 'the same, for emails',
  },
  // LinkedIn tolerates about 100 connection invitations a week; look-ups and emails get 5 days of the daily default.
  OUTREACH_OWNER_WEEKLY_PROFILE_LOOKUPS: {
    section: 'Outreach',
    ...wholeNumber(0, 700_000),
    default: '500',
    doc: "profile look-ups per owner per rolling week (the UTC day and the 6 before it), across all their campaigns, on top of the daily ones and of each campaign's own `weeklyLimits` (none unless set). `500`: five days of the daily default. `0` stops that kind ([weekly limits](outreach.md))",
  },
  OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES: {
    section: 'Outreach',
    ...wholeNumber(0, 700_000),
    default: '100',
    doc: 'the same, for LinkedIn messages. `100`: about what LinkedIn tolerates in connection invitations a week',
  },
  OUTREACH_OWNER_WEEKLY_EMAILS: {
    section: 'Outreach',
    ...wholeNumber(0, 700_000),
    default: '500',
    doc: 'the same, for emails',
  },
  OUTREACH_LEASE_MS: {
    section: 'Outreach',
    ...wholeNumber(1_000, 3_600_000),
    default: '120000',
    doc: 'how long a claimed task, and an action in flight, belong to one worker. Past it, another worker may claim the task, and the sweeper settles the action',
  },
  OUTREACH_PLAN_TIMEOUT_MS: {
    section: 'Outreach',
    ...wholeNumber(1_000, 600_000),
    default: '60000',
    doc: 'deadline of asking the model for an action, re-ask included',
  },
  OUTREACH_ACTION_TIMEOUT_MS: {
    section: 'Outreach',
    ...wholeNumber(100, 600_000),
    default: '30000',
    doc: "deadline of one channel action (also the MCP LinkedIn client's request timeout)",
  },
  OUTREACH_POLL_INTERVAL_MS: {
    section: 'Outreach',
    ...wholeNumber(10, 600_000),
    default: '2000',
    doc: "a worker's pause when nothing is due, or after a crashed cycle",
  },
  OUTREACH_DRAFT_TTL_HOURS: {
    section: 'Outreach',
    ...wholeNumber(1, 24 * 30),
    default: '72',
    doc: "how long a draft held for review (a campaign's `approvalMode`) waits for its owner. Past it, the sweeper expires it, gives its quota slot back and makes its task due again for a fresh draft",
  },
  OUTREACH_SWEEP_INTERVAL_MS: {
    section: 'Outreach',
    ...wholeNumber(100, 3_600_000),
    default: '60000',
    doc: 'how often actions left in flight are swept: by each worker (at its start, then between cycles) and by each server process that runs no worker (at start, then on this interval)',
  },
  OUTREACH_SECRET_NAMES: {
    section: 'Outreach',
    ...list('names matching `[a-z0-9][a-z0-9_-]*`', { regex: /^[a-z0-9][a-z0-9_-]*$/, what: 'a secret name' }),
    default: 'linkedin-session',
    doc: 'the secret names `refresh_session` may ask for',
  },
  OUTREACH_MCP_URL: {
    section: 'Outreach',
    ...httpUrl(),
    defaultText: 'unset: sandbox LinkedIn',
    doc: "your LinkedIn MCP server over Streamable HTTP. Opt-in: automating a LinkedIn account may break LinkedIn's terms",
  },
  OUTREACH_MCP_COMMAND: {
    section: 'Outreach',
    ...text('a command line, split on spaces (no quoting)'),
    doc: 'the same server started over stdio. Cannot be set together with `OUTREACH_MCP_URL`',
  },
  SMTP_URL: {
    section: 'Outreach',
    ...pattern(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL', '`smtp://…` or `smtps://…`'),
    defaultText: 'unset: sandbox outbox',
    doc: 'an SMTP server for outreach email (nodemailer)',
  },
  SMTP_FROM: {
    section: 'Outreach',
    ...text('an address'),
    default: 'Bridle <outreach@localhost>',
    doc: 'the sender. Its domain also names the `Message-ID`s. A domain that is not a plain host name stops the start',
  },

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
