import type { McpDestructiveToolMode } from '../../domain/agent/confirmation';
import type { AgentLimits, ModelSampling } from '../../domain/agent/limits';
import type { Amount } from '../../domain/agent/money';
import type { PriceTable } from '../../domain/agent/pricing';
import type { DailyBudgetLimits } from '../../application/agent/ports/token-budget.port';
import type { ActionKind } from '../../domain/outreach/outreach-task';
import { type NotificationConfig, notificationConfig } from './notification-config';
import { ownerLimits } from './owner-limits';
import { moneySettings, PriceSettingProblem } from './model-prices';
import { parseSettings, type SettingValues } from './settings';
import { type LogLevel } from './settings/setting';
import { webhookConfig, type WebhookConfig } from './webhook-config';

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
  /** Requests to /mcp per user per minute, whatever each carries. */
  readonly mcpRateLimitPerMinute!: number;
  /** Requests per user per minute to every other route a bearer token opens. */
  readonly apiRateLimitPerMinute!: number;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client (false: none). */
  readonly trustProxy!: boolean | number | string;
  /** When set, GET /metrics needs `Authorization: Bearer <it>`. */
  readonly metricsToken!: string | undefined;
  readonly llm!: LlmSettings;
  /** LLM_PRICES (or the older LLM_PRICE_*_PER_1K): null when calls are not priced. */
  readonly prices!: PriceTable | null;
  readonly llmSampling!: ModelSampling;
  /** Chat tokens and their cost per person per UTC day; null: no such budget. */
  readonly chatDailyBudget!: DailyBudgetLimits;
  /** CHAT_MONTHLY_BUDGET: each person's budget for a UTC month unless an admin set their own; null: none. */
  readonly chatMonthlyBudget!: Amount | null;
  readonly agentLimits!: AgentLimits;
  /** SUPPORT_CONTACT: where people get help, named after an unexpected failure; null: "contact support". */
  readonly supportContact!: string | null;
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
  /** AUDIT_LOG_ORIGIN: the audit log's name in its C2SP checkpoint notes; by default PUBLIC_BASE_URL's host and path, then `/audit`. */
  readonly auditLogOrigin!: string;
  /** How long audit rows, conversations, outreach data and notifications are kept, in days; a legal hold keeps everything. */
  readonly retention!: {
    readonly auditDays: number;
    readonly conversationDays: number;
    readonly outreachDays: number;
    readonly notificationDays: number;
    readonly legalHold: boolean;
    readonly intervalMinutes: number;
  };
  /** Host names (no port) that `POST /mcp` answers to: a DNS-rebinding guard. */
  readonly mcpAllowedHosts!: ReadonlySet<string>;
  /** Browser origins allowed to call `POST /mcp`; requests without Origin are not browsers. */
  readonly mcpAllowedOrigins!: ReadonlySet<string>;
  /** Stateful /mcp sessions: closed after this many idle minutes, at most so many per person and in all. */
  readonly mcpSessions!: { readonly idleMinutes: number; readonly perUser: number; readonly max: number };
  /** Open 2026 `subscriptions/listen` streams a person may hold on one replica. */
  readonly mcpListenStreamsPerUser!: number;
  /** `allow` lets MCP clients run destructive tools without the person; by default they are refused. */
  readonly mcpDestructiveTools!: McpDestructiveToolMode;
  /** How long a person has to answer a deletion's question in their MCP client, in seconds. */
  readonly mcpConfirmationTimeoutSeconds!: number;
  /** Bridle as the OAuth authorization server of MCP clients: how long its tokens last. */
  readonly oauth!: {
    readonly accessTokenTtlSeconds: number;
    readonly refreshTokenTtlDays: number;
    /** Client ID Metadata Documents: whether URL client_ids are fetched, from which hosts (empty: any), within how long. */
    readonly clientMetadata: { readonly fetch: boolean; readonly hosts: ReadonlySet<string>; readonly timeoutMs: number };
  };
  /** Host names an outbound fetch may reach although they resolve to special-use addresses. */
  readonly outboundPrivateHosts!: ReadonlySet<string>;
  readonly outreach!: OutreachConfig;
  readonly notifications!: NotificationConfig;
  readonly webhooks!: WebhookConfig;
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

/**
 * Reads and validates the environment (the variables and their rules are SETTINGS, in
 * settings/); throws a ConfigError naming the first bad variable. Each value is checked on its
 * own first, then the rules that tie variables together, in the order below.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): AppConfig {
  const parsed = parseSettings(env);
  if (!parsed.success) throw new ConfigError(parsed.variable, parsed.problem);
  const values = parsed.values;
  // Compared untrimmed, as Node's own tooling compares it.
  const production = env.NODE_ENV === 'production';
  const embedded = values.DATABASE_URL === undefined;

  if (production && values.JWT_SECRET === undefined) throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
  if (production && values.PUBLIC_BASE_URL === undefined) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      'is required when NODE_ENV=production: it is the OAuth issuer and token audience every replica must share ' +
        '(without it a replica issues tokens for http://localhost, which the others refuse and MCP clients cannot reach), ' +
        'and it starts every unsubscribe link',
    );
  }
  // 12 hours (a working day), or the token's own lifetime when that is longer; never shorter than it.
  const sessionMaxAgeSeconds = values.SESSION_MAX_AGE ?? Math.max(12 * 3600, values.JWT_EXPIRES_IN);
  if (sessionMaxAgeSeconds < values.JWT_EXPIRES_IN) {
    throw new ConfigError('SESSION_MAX_AGE', `must be at least JWT_EXPIRES_IN (${values.JWT_EXPIRES_IN}), got "${sessionMaxAgeSeconds}"`);
  }
  const llm = llmSettings(values);
  const money = asConfigError(() => moneySettings(values));
  // Every replica must sign with the same key, which none may generate alone.
  if (production && !embedded && values.AUDIT_SIGNING_KEY === undefined) {
    throw new ConfigError('AUDIT_SIGNING_KEY', 'is required when NODE_ENV=production with DATABASE_URL: every replica signs with it');
  }

  return Object.assign(new AppConfig(), {
    production,
    host: values.HOST,
    port: values.PORT,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    publicBaseUrl: values.PUBLIC_BASE_URL ?? `http://localhost:${values.PORT}`,
    dataDir: values.BRIDLE_DATA_DIR,
    database: databaseSettings(values),
    jwtSecret: values.JWT_SECRET,
    jwtExpiresInSeconds: values.JWT_EXPIRES_IN,
    sessionMaxAgeSeconds,
    signUp: values.SIGN_UP,
    logLevel: values.LOG_LEVEL,
    authRateLimitPerMinute: values.AUTH_RATE_LIMIT_PER_MINUTE,
    chatRateLimitPerMinute: values.CHAT_RATE_LIMIT_PER_MINUTE,
    signInAttemptsPerAccount: values.SIGN_IN_ATTEMPTS_PER_ACCOUNT,
    mcpRateLimitPerMinute: values.MCP_RATE_LIMIT_PER_MINUTE,
    apiRateLimitPerMinute: values.API_RATE_LIMIT_PER_MINUTE,
    trustProxy: values.TRUST_PROXY,
    metricsToken: values.METRICS_TOKEN,
    llm,
    prices: money.prices,
    llmSampling: { temperature: values.LLM_TEMPERATURE, maxTokens: values.LLM_MAX_TOKENS },
    chatDailyBudget: { tokens: values.CHAT_DAILY_TOKEN_BUDGET ?? null, cost: money.dailyCost },
    chatMonthlyBudget: money.monthly,
    agentLimits: {
      maxIterations: values.AGENT_MAX_ITERATIONS,
      maxToolCalls: values.AGENT_MAX_TOOL_CALLS,
      turnTimeoutMs: values.AGENT_TURN_TIMEOUT_MS,
      toolTimeoutMs: values.AGENT_TOOL_TIMEOUT_MS,
      historyWindow: values.AGENT_HISTORY_WINDOW,
      contextTokens: values.AGENT_CONTEXT_TOKENS,
      maxToolArgumentBytes: values.AGENT_MAX_TOOL_ARGUMENT_BYTES,
      maxReplyChars: values.AGENT_MAX_REPLY_CHARS,
    },
    supportContact: values.SUPPORT_CONTACT ?? null,
    chatSweepIntervalMs: values.CHAT_SWEEP_INTERVAL_MS,
    auditSealIntervalMs: values.AUDIT_SEAL_INTERVAL_MS,
    auditSigningKey: values.AUDIT_SIGNING_KEY,
    auditCheckpoint: { rows: values.AUDIT_CHECKPOINT_ROWS, minutes: values.AUDIT_CHECKPOINT_MINUTES },
    auditLogOrigin: values.AUDIT_LOG_ORIGIN ?? defaultLogOrigin(values.PUBLIC_BASE_URL ?? `http://localhost:${values.PORT}`),
    retention: {
      auditDays: values.AUDIT_RETENTION_DAYS,
      conversationDays: values.CONVERSATION_RETENTION_DAYS,
      outreachDays: values.OUTREACH_RETENTION_DAYS,
      notificationDays: values.NOTIFICATION_RETENTION_DAYS,
      legalHold: values.RETENTION_LEGAL_HOLD,
      intervalMinutes: values.RETENTION_INTERVAL_MINUTES,
    },
    mcpAllowedHosts: values.MCP_ALLOWED_HOSTS,
    mcpAllowedOrigins: values.MCP_ALLOWED_ORIGINS,
    mcpSessions: {
      idleMinutes: values.MCP_SESSION_IDLE_MINUTES,
      perUser: values.MCP_SESSIONS_PER_USER,
      max: values.MCP_SESSIONS_MAX,
    },
    mcpListenStreamsPerUser: values.MCP_LISTEN_STREAMS_PER_USER,
    mcpDestructiveTools: values.MCP_DESTRUCTIVE_TOOLS,
    mcpConfirmationTimeoutSeconds: values.MCP_CONFIRMATION_TIMEOUT_SECONDS,
    oauth: {
      accessTokenTtlSeconds: values.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlDays: values.OAUTH_REFRESH_TOKEN_TTL_DAYS,
      clientMetadata: {
        fetch: values.OAUTH_CLIENT_METADATA_FETCH,
        hosts: values.OAUTH_CLIENT_METADATA_HOSTS,
        timeoutMs: values.OAUTH_CLIENT_METADATA_TIMEOUT_MS,
      },
    },
    outboundPrivateHosts: values.OUTBOUND_PRIVATE_HOSTS,
    outreach: outreachConfig(values, embedded),
    notifications: notificationConfig(values),
    webhooks: webhookConfig(values),
  });
}

function databaseSettings(values: SettingValues): DatabaseSettings {
  const url = values.DATABASE_URL;
  const preparedStatements = values.DATABASE_PREPARED_STATEMENTS;
  return url === undefined
    ? { kind: 'embedded', dataDir: values.BRIDLE_DATA_DIR, preparedStatements }
    : { kind: 'server', url, poolMax: values.DATABASE_POOL_MAX, preparedStatements, listenUrl: values.DATABASE_LISTEN_URL ?? url };
}

/** @param embedded whether the database is the embedded one (a single process). */
function outreachConfig(values: SettingValues, embedded: boolean): OutreachConfig {
  const mcpUrl = values.OUTREACH_MCP_URL;
  const mcpCommand = values.OUTREACH_MCP_COMMAND;
  if (mcpUrl !== undefined && mcpCommand !== undefined) {
    throw new ConfigError('OUTREACH_MCP_COMMAND', 'cannot be set together with OUTREACH_MCP_URL: choose one');
  }
  const [command, ...args] = (mcpCommand ?? '').split(/\s+/);
  return {
    ...ownerLimits(values, (problem) => {
      throw new ConfigError('OUTREACH_OWNER_LIMITS', problem);
    }),
    leaseMs: values.OUTREACH_LEASE_MS,
    planTimeoutMs: values.OUTREACH_PLAN_TIMEOUT_MS,
    actionTimeoutMs: values.OUTREACH_ACTION_TIMEOUT_MS,
    secretNames: [...values.OUTREACH_SECRET_NAMES],
    draftTtlHours: values.OUTREACH_DRAFT_TTL_HOURS,
    // On the embedded database the server is the only process there can be: it works the campaigns itself.
    worker: values.OUTREACH_WORKER ?? embedded,
    pollIntervalMs: values.OUTREACH_POLL_INTERVAL_MS,
    sweepIntervalMs: values.OUTREACH_SWEEP_INTERVAL_MS,
    linkedin:
      mcpUrl !== undefined ? { kind: 'mcp', url: mcpUrl } : mcpCommand !== undefined ? { kind: 'mcp', command, args } : { kind: 'sandbox' },
    email: values.SMTP_URL === undefined ? { kind: 'sandbox' } : { kind: 'smtp', url: values.SMTP_URL, from: values.SMTP_FROM },
  };
}

function llmSettings(values: SettingValues): LlmSettings {
  const common = { timeoutMs: values.LLM_TIMEOUT_MS, maxRetries: values.LLM_MAX_RETRIES, retryMaxWaitMs: values.LLM_RETRY_MAX_WAIT_MS };
  const provider = values.LLM_PROVIDER;
  switch (provider) {
    case 'offline':
      return { provider, streamWordDelayMs: values.OFFLINE_STREAM_WORD_DELAY_MS, ...common };
    case 'openai':
      return {
        provider,
        apiKey: required(values.OPENAI_API_KEY, 'OPENAI_API_KEY', 'when LLM_PROVIDER=openai'),
        model: required(values.OPENAI_MODEL, 'OPENAI_MODEL', 'when LLM_PROVIDER=openai (e.g. gpt-4o-mini)'),
        baseUrl: values.OPENAI_BASE_URL,
        ...common,
      };
    case 'azure-openai':
      return {
        provider,
        apiKey: required(values.AZURE_OPENAI_API_KEY, 'AZURE_OPENAI_API_KEY', 'when LLM_PROVIDER=azure-openai'),
        endpoint: required(values.AZURE_OPENAI_ENDPOINT, 'AZURE_OPENAI_ENDPOINT', 'when LLM_PROVIDER=azure-openai'),
        deployment: required(values.AZURE_OPENAI_DEPLOYMENT, 'AZURE_OPENAI_DEPLOYMENT', 'when LLM_PROVIDER=azure-openai'),
        apiVersion: required(
          values.AZURE_OPENAI_API_VERSION,
          'AZURE_OPENAI_API_VERSION',
          'when LLM_PROVIDER=azure-openai (e.g. 2024-10-21)',
        ),
        ...common,
      };
    case 'gemini':
      return {
        provider,
        apiKey: required(values.GEMINI_API_KEY, 'GEMINI_API_KEY', 'when LLM_PROVIDER=gemini'),
        model: required(values.GEMINI_MODEL, 'GEMINI_MODEL', 'when LLM_PROVIDER=gemini (e.g. gemini-2.5-flash)'),
        baseUrl: values.GEMINI_BASE_URL,
        ...common,
      };
  }
}

/** `https://bridle.example.com/` → `bridle.example.com/audit`: the address without scheme, credentials or trailing slash. */
export function defaultLogOrigin(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  let path = url.pathname;
  while (path.endsWith('/')) path = path.slice(0, -1);
  return `${url.host}${path}/audit`;
}

function required(value: string | undefined, name: string, when: string): string {
  if (value === undefined) throw new ConfigError(name, `is required ${when}`);
  return value;
}

function asConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof PriceSettingProblem ? new ConfigError(error.variable, error.problem) : error;
  }
}
