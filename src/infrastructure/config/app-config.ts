import { createPrivateKey } from 'node:crypto';
import { resolve } from 'node:path';
import { MCP_DESTRUCTIVE_TOOL_MODES, type McpDestructiveToolMode } from '../../domain/agent/confirmation';
import { type AgentLimits, DEFAULT_SAMPLING, type ModelSampling, REPLY_TARGET_CHARS } from '../../domain/agent/limits';
import type { TokenPricing } from '../../domain/agent/pricing';
import type { DailyBudgetLimits } from '../../application/agent/ports/token-budget.port';
import type { ActionKind } from '../../domain/outreach/outreach-task';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LLM_PROVIDERS = ['offline', 'openai', 'azure-openai', 'gemini'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

/** Which language model, and what its adapter needs. Keys live here and nowhere else. */
export type LlmSettings = (
  | {
      readonly provider: 'offline';
      /** The pause between the words of a streamed answer, as a provider's tokens arrive. */
      readonly streamWordDelayMs: number;
    }
  | { readonly provider: 'openai'; readonly apiKey: string; readonly model: string; readonly baseUrl: string | undefined }
  | {
      readonly provider: 'azure-openai';
      readonly apiKey: string;
      readonly endpoint: string;
      readonly deployment: string;
      readonly apiVersion: string;
    }
  | { readonly provider: 'gemini'; readonly apiKey: string; readonly model: string; readonly baseUrl: string | undefined }
) & {
  /** One HTTP attempt; the turn's deadline still bounds everything. */
  readonly timeoutMs: number;
  /** Retries after a rate limit or a server error (0–2). */
  readonly maxRetries: number;
  /** A retry-after longer than this is not waited for: the failure is reported instead. */
  readonly retryMaxWaitMs: number;
};

export type DatabaseSettings = (
  | { readonly kind: 'embedded'; readonly dataDir: string }
  | {
      readonly kind: 'server';
      readonly url: string;
      /** DATABASE_POOL_MAX: connections this process may hold (10 when not given). */
      readonly poolMax?: number;
      /** DATABASE_LISTEN_URL: where the fleet bus's LISTEN connection goes, past a pooler (DATABASE_URL when not given). */
      readonly listenUrl?: string;
    }
) & {
  /**
   * DATABASE_PREPARED_STATEMENTS: false sends every statement unnamed (still with parameters),
   * for a pooler in transaction mode that cannot keep a connection's named statements (true
   * when not given).
   */
  readonly preparedStatements?: boolean;
};

/** Everything Bridle reads from its environment, validated once at boot.
 * A class so that it is its own injection token. */
export class AppConfig {
  readonly production!: boolean;
  readonly host!: string;
  readonly port!: number;
  /** How long in-flight requests may run after SIGTERM before their connections are cut. */
  readonly shutdownGraceMs!: number;
  /**
   * Where people reach this service (PUBLIC_BASE_URL), without a trailing slash: the start of
   * the links Bridle puts in what it sends (the unsubscribe link of every outreach email).
   */
  readonly publicBaseUrl!: string;
  readonly dataDir!: string;
  readonly database!: DatabaseSettings;
  /** Unset means: generate one and keep it in the data folder (refused in production). */
  readonly jwtSecret!: string | undefined;
  readonly jwtExpiresInSeconds!: number;
  /** How long after signing in a console session may still be renewed (POST /auth/refresh); at least jwtExpiresInSeconds. */
  readonly sessionMaxAgeSeconds!: number;
  /** `closed`: POST /auth/register is refused; the operator's command creates accounts. */
  readonly signUp!: 'open' | 'closed';
  readonly logLevel!: LogLevel;
  readonly authRateLimitPerMinute!: number;
  /** Chat turns per user per minute (a model call can cost money). */
  readonly chatRateLimitPerMinute!: number;
  /** Sign-in attempts per account per 15 minutes, from any address; blocks back off. */
  readonly signInAttemptsPerAccount!: number;
  /** POST /mcp requests per user per minute. */
  readonly mcpRateLimitPerMinute!: number;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client (false: none). */
  readonly trustProxy!: boolean | number | string;
  /** When set, GET /metrics needs `Authorization: Bearer <it>`. */
  readonly metricsToken!: string | undefined;
  readonly llm!: LlmSettings;
  readonly llmPricing!: TokenPricing | null;
  readonly llmSampling!: ModelSampling;
  /** Chat tokens and their cost per person per UTC day; null: no such budget. */
  readonly chatDailyBudget!: DailyBudgetLimits;
  readonly agentLimits!: AgentLimits;
  /** How often this process settles chat turns and tool calls cut off before they finished. */
  readonly chatSweepIntervalMs!: number;
  /** How often this process links appended audit rows onto the hash chain (one process at a time does). */
  readonly auditSealIntervalMs!: number;
  /**
   * AUDIT_SIGNING_KEY, the Ed25519 key that signs audit checkpoints, as PKCS8 PEM. Unset: one is
   * generated and kept in the data folder; refused with a PostgreSQL server in production.
   */
  readonly auditSigningKey!: string | undefined;
  /** A signed checkpoint after so many new links or so many minutes, whichever comes first. */
  readonly auditCheckpoint!: { readonly rows: number; readonly minutes: number };
  /** Host names (no port) that `POST /mcp` answers to: a DNS-rebinding guard. */
  readonly mcpAllowedHosts!: ReadonlySet<string>;
  /** Browser origins allowed to call `POST /mcp`; requests without Origin are not browsers. */
  readonly mcpAllowedOrigins!: ReadonlySet<string>;
  /** Stateful /mcp sessions: closed after this many idle minutes, at most so many per person and in all. */
  readonly mcpSessions!: { readonly idleMinutes: number; readonly perUser: number; readonly max: number };
  /** `allow` lets MCP clients run destructive tools without the person; by default they are refused. */
  readonly mcpDestructiveTools!: McpDestructiveToolMode;
  /** Bridle as the OAuth authorization server of MCP clients: how long its tokens last. */
  readonly oauth!: { readonly accessTokenTtlSeconds: number; readonly refreshTokenTtlDays: number };
  readonly outreach!: OutreachConfig;
}

/** The outreach controller: its limits, its worker and its channels. */
export interface OutreachConfig {
  readonly ownerDailyLimits: Readonly<Record<ActionKind, number>>;
  /** OUTREACH_OWNER_WEEKLY_*: per owner, per rolling week (the UTC day and the 6 before it), across campaigns. */
  readonly ownerWeeklyLimits: Readonly<Record<ActionKind, number>>;
  readonly leaseMs: number;
  readonly planTimeoutMs: number;
  readonly actionTimeoutMs: number;
  readonly secretNames: readonly string[];
  /** OUTREACH_DRAFT_TTL_HOURS: how long a draft held for review waits for its owner. */
  readonly draftTtlHours: number;
  /** Run a worker inside the HTTP server process. */
  readonly worker: boolean;
  readonly pollIntervalMs: number;
  readonly sweepIntervalMs: number;
  /** The sandbox (a simulated network in the database) unless an MCP server is given. */
  readonly linkedin:
    | { readonly kind: 'sandbox' }
    | { readonly kind: 'mcp'; readonly url: string }
    | { readonly kind: 'mcp'; readonly command: string; readonly args: readonly string[] };
  /** The sandbox outbox unless an SMTP server is given. */
  readonly email: { readonly kind: 'sandbox' } | { readonly kind: 'smtp'; readonly url: string; readonly from: string };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and validates the environment; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env): AppConfig {
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(text(env, 'BRIDLE_DATA_DIR') ?? './data');
  const databaseUrl = text(env, 'DATABASE_URL');
  const jwtSecret = text(env, 'JWT_SECRET');

  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters long');
  }
  if (jwtSecret === undefined && production) {
    throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
  }
  const port = integer(env, 'PORT', 3000, 0, 65_535);
  const jwtExpiresInSeconds = integer(env, 'JWT_EXPIRES_IN', 3600, 60, 30 * 24 * 3600);

  return Object.assign(new AppConfig(), {
    production,
    host: text(env, 'HOST') ?? '0.0.0.0',
    port,
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    publicBaseUrl: publicBaseUrl(env, port, production),
    dataDir,
    database: databaseSettings(env, databaseUrl, dataDir),
    jwtSecret,
    jwtExpiresInSeconds,
    sessionMaxAgeSeconds: sessionMaxAge(env, jwtExpiresInSeconds),
    signUp: oneOf(env, 'SIGN_UP', ['open', 'closed'], 'open'),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    authRateLimitPerMinute: integer(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 20, 1, 100_000),
    chatRateLimitPerMinute: integer(env, 'CHAT_RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    signInAttemptsPerAccount: integer(env, 'SIGN_IN_ATTEMPTS_PER_ACCOUNT', 10, 1, 10_000),
    mcpRateLimitPerMinute: integer(env, 'MCP_RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
    trustProxy: trustProxy(env),
    metricsToken: secret(env, 'METRICS_TOKEN', 16),
    llm: llmSettings(env),
    llmPricing: pricing(env),
    llmSampling: {
      temperature: decimal(env, 'LLM_TEMPERATURE', { max: 2 }) ?? DEFAULT_SAMPLING.temperature,
      maxTokens: integer(env, 'LLM_MAX_TOKENS', DEFAULT_SAMPLING.maxTokens, 16, 32_768),
    },
    chatDailyBudget: chatDailyBudget(env),
    agentLimits: {
      maxIterations: integer(env, 'AGENT_MAX_ITERATIONS', 5, 1, 20),
      maxToolCalls: integer(env, 'AGENT_MAX_TOOL_CALLS', 10, 1, 50),
      turnTimeoutMs: integer(env, 'AGENT_TURN_TIMEOUT_MS', 30_000, 1_000, 300_000),
      toolTimeoutMs: integer(env, 'AGENT_TOOL_TIMEOUT_MS', 10_000, 100, 120_000),
      historyWindow: integer(env, 'AGENT_HISTORY_WINDOW', 100, 2, 1_000),
      contextTokens: integer(env, 'AGENT_CONTEXT_TOKENS', 8_000, 1_000, 2_000_000),
      maxToolArgumentBytes: integer(env, 'AGENT_MAX_TOOL_ARGUMENT_BYTES', 16 * 1024, 256, 64 * 1024),
      maxReplyChars: integer(env, 'AGENT_MAX_REPLY_CHARS', REPLY_TARGET_CHARS, 100, 8_000),
    },
    chatSweepIntervalMs: integer(env, 'CHAT_SWEEP_INTERVAL_MS', 60_000, 100, 3_600_000),
    auditSealIntervalMs: integer(env, 'AUDIT_SEAL_INTERVAL_MS', 500, 10, 60_000),
    auditSigningKey: auditSigningKey(env, production && databaseUrl !== undefined),
    auditCheckpoint: {
      rows: integer(env, 'AUDIT_CHECKPOINT_ROWS', 10_000, 100, 10_000_000),
      minutes: integer(env, 'AUDIT_CHECKPOINT_MINUTES', 60, 1, 7 * 24 * 60),
    },
    mcpAllowedHosts: list(env, 'MCP_ALLOWED_HOSTS', ['localhost', '127.0.0.1', '[::1]']),
    mcpAllowedOrigins: list(env, 'MCP_ALLOWED_ORIGINS', []),
    mcpSessions: {
      idleMinutes: integer(env, 'MCP_SESSION_IDLE_MINUTES', 30, 1, 24 * 60),
      perUser: integer(env, 'MCP_SESSIONS_PER_USER', 10, 1, 1000),
      max: integer(env, 'MCP_SESSIONS_MAX', 1000, 1, 100_000),
    },
    mcpDestructiveTools: oneOf(env, 'MCP_DESTRUCTIVE_TOOLS', MCP_DESTRUCTIVE_TOOL_MODES, 'confirm-in-chat'),
    oauth: {
      accessTokenTtlSeconds: integer(env, 'OAUTH_ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 24 * 3600),
      refreshTokenTtlDays: integer(env, 'OAUTH_REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
    },
    outreach: outreachConfig(env, databaseUrl === undefined),
  });
}

function databaseSettings(env: Env, url: string | undefined, dataDir: string): DatabaseSettings {
  // Both are checked on the embedded database too, so a bad value fails before the move to a server.
  // Two connections at least: the migration lock holds one while the migrations run on another.
  const poolMax = integer(env, 'DATABASE_POOL_MAX', 10, 2, 1_000);
  const preparedStatements = oneOf(env, 'DATABASE_PREPARED_STATEMENTS', ['true', 'false'], 'true') === 'true';
  const listenUrl = text(env, 'DATABASE_LISTEN_URL');
  if (listenUrl !== undefined && !/^postgres(ql)?:\/\//.test(listenUrl)) {
    throw new ConfigError('DATABASE_LISTEN_URL', 'must be a postgres:// or postgresql:// URL');
  }
  return url === undefined
    ? { kind: 'embedded', dataDir, preparedStatements }
    : { kind: 'server', url, poolMax, preparedStatements, listenUrl: listenUrl ?? url };
}

/** @param embedded whether the database is the embedded one (a single process). */
function outreachConfig(env: Env, embedded: boolean): OutreachConfig {
  const mcpUrl = url(env, 'OUTREACH_MCP_URL');
  const mcpCommand = text(env, 'OUTREACH_MCP_COMMAND');
  if (mcpUrl !== undefined && mcpCommand !== undefined) {
    throw new ConfigError('OUTREACH_MCP_COMMAND', 'cannot be set together with OUTREACH_MCP_URL: choose one');
  }
  const smtpUrl = text(env, 'SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL');
  }
  const [command, ...args] = (mcpCommand ?? '').split(/\s+/);
  const secretNames = [...list(env, 'OUTREACH_SECRET_NAMES', ['linkedin-session'])];
  for (const name of secretNames) {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name))
      throw new ConfigError('OUTREACH_SECRET_NAMES', `contains "${name}", which is not a secret name`);
  }
  return {
    ownerDailyLimits: {
      profile_lookup: integer(env, 'OUTREACH_OWNER_DAILY_PROFILE_LOOKUPS', 100, 0, 100_000),
      linkedin_message: integer(env, 'OUTREACH_OWNER_DAILY_LINKEDIN_MESSAGES', 100, 0, 100_000),
      email: integer(env, 'OUTREACH_OWNER_DAILY_EMAILS', 100, 0, 100_000),
    },
    // LinkedIn tolerates about 100 connection invitations a week; look-ups and emails get 5 days of the daily default.
    ownerWeeklyLimits: {
      profile_lookup: integer(env, 'OUTREACH_OWNER_WEEKLY_PROFILE_LOOKUPS', 500, 0, 700_000),
      linkedin_message: integer(env, 'OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES', 100, 0, 700_000),
      email: integer(env, 'OUTREACH_OWNER_WEEKLY_EMAILS', 500, 0, 700_000),
    },
    leaseMs: integer(env, 'OUTREACH_LEASE_MS', 120_000, 1_000, 3_600_000),
    planTimeoutMs: integer(env, 'OUTREACH_PLAN_TIMEOUT_MS', 60_000, 1_000, 600_000),
    actionTimeoutMs: integer(env, 'OUTREACH_ACTION_TIMEOUT_MS', 30_000, 100, 600_000),
    secretNames,
    draftTtlHours: integer(env, 'OUTREACH_DRAFT_TTL_HOURS', 72, 1, 24 * 30),
    // On the embedded database the server is the only process there can be: it works the campaigns itself.
    worker: oneOf(env, 'OUTREACH_WORKER', ['true', 'false'], embedded ? 'true' : 'false') === 'true',
    pollIntervalMs: integer(env, 'OUTREACH_POLL_INTERVAL_MS', 2_000, 10, 600_000),
    sweepIntervalMs: integer(env, 'OUTREACH_SWEEP_INTERVAL_MS', 60_000, 100, 3_600_000),
    linkedin:
      mcpUrl !== undefined ? { kind: 'mcp', url: mcpUrl } : mcpCommand !== undefined ? { kind: 'mcp', command, args } : { kind: 'sandbox' },
    email:
      smtpUrl === undefined
        ? { kind: 'sandbox' }
        : { kind: 'smtp', url: smtpUrl, from: text(env, 'SMTP_FROM') ?? 'Bridle <outreach@localhost>' },
  };
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** 12 hours (a working day), or the token's own lifetime when that is longer; never shorter than it. */
function sessionMaxAge(env: Env, jwtExpiresInSeconds: number): number {
  const maxAge = integer(env, 'SESSION_MAX_AGE', Math.max(12 * 3600, jwtExpiresInSeconds), 60, 30 * 24 * 3600);
  if (maxAge < jwtExpiresInSeconds) {
    throw new ConfigError('SESSION_MAX_AGE', `must be at least JWT_EXPIRES_IN (${jwtExpiresInSeconds}), got "${maxAge}"`);
  }
  return maxAge;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function llmSettings(env: Env): LlmSettings {
  const common = {
    timeoutMs: integer(env, 'LLM_TIMEOUT_MS', 20_000, 1_000, 300_000),
    maxRetries: integer(env, 'LLM_MAX_RETRIES', 2, 0, 2),
    retryMaxWaitMs: integer(env, 'LLM_RETRY_MAX_WAIT_MS', 5_000, 0, 60_000),
  };
  const provider = oneOf(env, 'LLM_PROVIDER', LLM_PROVIDERS, 'offline');
  switch (provider) {
    case 'offline':
      return { provider, streamWordDelayMs: integer(env, 'OFFLINE_STREAM_WORD_DELAY_MS', 15, 0, 1_000), ...common };
    case 'openai':
      return {
        provider,
        apiKey: required(env, 'OPENAI_API_KEY', 'when LLM_PROVIDER=openai'),
        model: required(env, 'OPENAI_MODEL', 'when LLM_PROVIDER=openai (e.g. gpt-4o-mini)'),
        baseUrl: url(env, 'OPENAI_BASE_URL'),
        ...common,
      };
    case 'azure-openai':
      return {
        provider,
        apiKey: required(env, 'AZURE_OPENAI_API_KEY', 'when LLM_PROVIDER=azure-openai'),
        endpoint: url(env, 'AZURE_OPENAI_ENDPOINT') ?? required(env, 'AZURE_OPENAI_ENDPOINT', 'when LLM_PROVIDER=azure-openai'),
        deployment: required(env, 'AZURE_OPENAI_DEPLOYMENT', 'when LLM_PROVIDER=azure-openai'),
        apiVersion: required(env, 'AZURE_OPENAI_API_VERSION', 'when LLM_PROVIDER=azure-openai (e.g. 2024-10-21)'),
        ...common,
      };
    case 'gemini':
      return {
        provider,
        apiKey: required(env, 'GEMINI_API_KEY', 'when LLM_PROVIDER=gemini'),
        model: required(env, 'GEMINI_MODEL', 'when LLM_PROVIDER=gemini (e.g. gemini-2.5-flash)'),
        baseUrl: url(env, 'GEMINI_BASE_URL'),
        ...common,
      };
  }
}

function chatDailyBudget(env: Env): DailyBudgetLimits {
  const tokens =
    text(env, 'CHAT_DAILY_TOKEN_BUDGET') === undefined ? null : integer(env, 'CHAT_DAILY_TOKEN_BUDGET', 0, 1_000, 1_000_000_000);
  const cost = decimal(env, 'CHAT_DAILY_COST_BUDGET') ?? null;
  if (cost !== null && pricing(env) === null) {
    throw new ConfigError('CHAT_DAILY_COST_BUDGET', 'needs LLM_PRICE_INPUT_PER_1K and LLM_PRICE_OUTPUT_PER_1K to count cost');
  }
  return { tokens, cost };
}

function pricing(env: Env): TokenPricing | null {
  const input = decimal(env, 'LLM_PRICE_INPUT_PER_1K');
  const output = decimal(env, 'LLM_PRICE_OUTPUT_PER_1K');
  if (input === undefined && output === undefined) return null;
  if (input === undefined) throw new ConfigError('LLM_PRICE_INPUT_PER_1K', 'is required when LLM_PRICE_OUTPUT_PER_1K is set');
  if (output === undefined) throw new ConfigError('LLM_PRICE_OUTPUT_PER_1K', 'is required when LLM_PRICE_INPUT_PER_1K is set');
  return { inputPer1k: input, outputPer1k: output };
}

function decimal(env: Env, name: string, bounds: { max?: number } = {}): number | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(name, `must be a non-negative decimal number, got "${raw}"`);
  const value = Number(raw);
  if (bounds.max !== undefined && value > bounds.max) throw new ConfigError(name, `must be at most ${bounds.max}, got "${raw}"`);
  return value;
}

function required(env: Env, name: string, when: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, `is required ${when}`);
  return value;
}

function url(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value !== undefined && !/^https?:\/\/[^\s]+$/.test(value)) {
    throw new ConfigError(name, 'must be an http:// or https:// URL');
  }
  return value;
}

/**
 * PUBLIC_BASE_URL: an http(s) origin, with a path prefix if Bridle is served under one; no
 * query, no fragment; a trailing slash is dropped. Unset: `http://localhost:<PORT>`, which
 * only the machine itself reaches, so production (NODE_ENV=production) needs it set.
 */
function publicBaseUrl(env: Env, port: number, production: boolean): string {
  const value = text(env, 'PUBLIC_BASE_URL');
  if (value === undefined) {
    if (production) {
      throw new ConfigError(
        'PUBLIC_BASE_URL',
        'is required when NODE_ENV=production: it is the OAuth issuer and token audience every replica must share ' +
          '(without it a replica issues tokens for http://localhost, which the others refuse and MCP clients cannot reach), ' +
          'and it starts every unsubscribe link',
      );
    }
    return `http://localhost:${port}`;
  }
  if (!/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/i.test(value)) {
    throw new ConfigError('PUBLIC_BASE_URL', `must be an http:// or https:// URL with no query or fragment, got "${value}"`);
  }
  return value.replace(/(?<!\/)\/+$/, '');
}

/**
 * TRUST_PROXY: unset or `false` trusts no proxy (the socket's address is the client's); a
 * number trusts that many hops; otherwise a comma-separated list of addresses, CIDR ranges
 * or Express's names `loopback`, `linklocal`, `uniquelocal`. `true` (trust anyone to say who
 * the client is) is refused: it would let every client pick its own rate-limit key.
 */
function trustProxy(env: Env): boolean | number | string {
  const value = text(env, 'TRUST_PROXY');
  if (value === undefined || value === 'false') return false;
  if (/^\d+$/.test(value)) return integer(env, 'TRUST_PROXY', 0, 0, 10);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(entry));
  if (bad !== undefined || entries.length === 0) {
    throw new ConfigError('TRUST_PROXY', `must be false, a number of hops, or addresses/CIDRs/loopback; "${bad ?? value}" is none of them`);
  }
  return entries.join(',');
}

/**
 * An Ed25519 private key, PEM or base64 of PKCS8 DER, as PKCS8 PEM. Required with a server in
 * production: every replica must sign with the same key, which none may generate alone.
 */
function auditSigningKey(env: Env, required: boolean): string | undefined {
  const value = text(env, 'AUDIT_SIGNING_KEY');
  if (value === undefined) {
    if (required)
      throw new ConfigError('AUDIT_SIGNING_KEY', 'is required when NODE_ENV=production with DATABASE_URL: every replica signs with it');
    return undefined;
  }
  let key;
  try {
    key = value.startsWith('-----BEGIN')
      ? createPrivateKey(value)
      : createPrivateKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    key = undefined;
  }
  if (key?.asymmetricKeyType !== 'ed25519')
    throw new ConfigError('AUDIT_SIGNING_KEY', 'must be an Ed25519 private key: PEM, or base64 of PKCS8 DER');
  return key.export({ format: 'pem', type: 'pkcs8' }) as string;
}

function secret(env: Env, name: string, minLength: number): string | undefined {
  const value = text(env, name);
  if (value !== undefined && value.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters long`);
  return value;
}

function list(env: Env, name: string, fallback: string[]): ReadonlySet<string> {
  const raw = text(env, name);
  const entries =
    raw === undefined
      ? fallback
      : raw
          .split(',')
          .map((entry) => entry.trim().toLowerCase())
          .filter(Boolean);
  return new Set(entries);
}
