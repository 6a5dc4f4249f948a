import { ConfigError, loadConfig } from '../../../src/infrastructure/config/app-config';

describe(loadConfig.name, () => {
  it('runs on embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      production: false,
      logLevel: 'info',
      jwtSecret: undefined,
      database: { kind: 'embedded', dataDir: expect.stringMatching(/\/data$/) },
    });
    expect(config.signUp).toBe('open');
  });

  it('reads SUPPORT_CONTACT, unset by default, and refuses one of several lines, naming it', () => {
    expect(loadConfig({}).supportContact).toBeNull();
    expect(loadConfig({ SUPPORT_CONTACT: '  help@example.com ' }).supportContact).toBe('help@example.com');
    expect(loadConfig({ SUPPORT_CONTACT: 'https://example.com/help' }).supportContact).toBe('https://example.com/help');
    expect(() => loadConfig({ SUPPORT_CONTACT: 'help@example.com\nsee also' })).toThrow(/SUPPORT_CONTACT must be one line of at most 200/);
    expect(() => loadConfig({ SUPPORT_CONTACT: 'x'.repeat(201) })).toThrow(/SUPPORT_CONTACT must be one line of at most 200/);
  });

  it('refuses destructive tools over MCP unless MCP_DESTRUCTIVE_TOOLS=allow', () => {
    expect(loadConfig({}).mcpDestructiveTools).toBe('confirm-in-chat');
    expect(loadConfig({ MCP_DESTRUCTIVE_TOOLS: 'allow' }).mcpDestructiveTools).toBe('allow');
  });

  it('gives OAuth access tokens an hour and refresh tokens 30 days unless told, within bounds', () => {
    expect(loadConfig({}).oauth).toMatchObject({ accessTokenTtlSeconds: 3600, refreshTokenTtlDays: 30 });
    expect(loadConfig({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: '60', OAUTH_REFRESH_TOKEN_TTL_DAYS: '7' }).oauth).toMatchObject({
      accessTokenTtlSeconds: 60,
      refreshTokenTtlDays: 7,
    });
    expect(() => loadConfig({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: '5' })).toThrow(
      /OAUTH_ACCESS_TOKEN_TTL_SECONDS must be a whole number from 60/,
    );
    expect(() => loadConfig({ OAUTH_REFRESH_TOKEN_TTL_DAYS: '0' })).toThrow(/OAUTH_REFRESH_TOKEN_TTL_DAYS must be a whole number from 1/);
  });

  it('fetches client metadata documents from any public host within 5 s unless told, and lets no host reach a private address', () => {
    const defaults = loadConfig({});
    expect(defaults.oauth.clientMetadata).toEqual({ fetch: true, hosts: new Set(), timeoutMs: 5000 });
    expect(defaults.outboundPrivateHosts).toEqual(new Set());
    const told = loadConfig({
      OAUTH_CLIENT_METADATA_FETCH: 'false',
      OAUTH_CLIENT_METADATA_HOSTS: 'App.Example, tools.example',
      OAUTH_CLIENT_METADATA_TIMEOUT_MS: '250',
      OUTBOUND_PRIVATE_HOSTS: 'intranet.corp',
    });
    expect(told.oauth.clientMetadata).toEqual({ fetch: false, hosts: new Set(['app.example', 'tools.example']), timeoutMs: 250 });
    expect(told.outboundPrivateHosts).toEqual(new Set(['intranet.corp']));
    expect(() => loadConfig({ OAUTH_CLIENT_METADATA_TIMEOUT_MS: '60000' })).toThrow(
      /OAUTH_CLIENT_METADATA_TIMEOUT_MS must be a whole number/,
    );
    expect(() => loadConfig({ OUTBOUND_PRIVATE_HOSTS: 'https://x.example' })).toThrow(/OUTBOUND_PRIVATE_HOSTS/);
  });

  it('works the campaigns in the server process on the embedded database, and not beside a PostgreSQL server, unless told', () => {
    expect(loadConfig({}).outreach.worker).toBe(true);
    expect(loadConfig({ OUTREACH_WORKER: 'false' }).outreach.worker).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/bridle' }).outreach.worker).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/bridle', OUTREACH_WORKER: 'true' }).outreach.worker).toBe(true);
  });

  it('limits each owner per UTC day and per rolling week, by default 100 a day of each kind and 100 LinkedIn messages a week', () => {
    const defaults = loadConfig({}).outreach;
    expect(defaults.ownerDailyLimits).toEqual({ profile_lookup: 100, linkedin_message: 100, email: 100 });
    expect(defaults.ownerWeeklyLimits).toEqual({ profile_lookup: 500, linkedin_message: 100, email: 500 });
    const set = loadConfig({
      OUTREACH_OWNER_WEEKLY_PROFILE_LOOKUPS: '0',
      OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES: '7',
      OUTREACH_OWNER_WEEKLY_EMAILS: '700000',
    }).outreach;
    expect(set.ownerWeeklyLimits).toEqual({ profile_lookup: 0, linkedin_message: 7, email: 700_000 });
    for (const bad of ['-1', '700001', '1.5', 'ten']) {
      expect(() => loadConfig({ OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES: bad })).toThrow(/OUTREACH_OWNER_WEEKLY_LINKEDIN_MESSAGES/);
    }
  });

  it('uses a PostgreSQL server when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/bridle' }).database).toEqual({
      kind: 'server',
      url: 'postgres://u@db:5432/bridle',
      poolMax: 10,
      preparedStatements: true,
      listenUrl: 'postgres://u@db:5432/bridle',
    });
  });

  it('sends the fleet bus’s LISTEN connection to DATABASE_LISTEN_URL, past a pooler, and refuses one that is not PostgreSQL', () => {
    const server = { DATABASE_URL: 'postgres://u@pooler:6432/bridle' };
    expect(loadConfig({ ...server, DATABASE_LISTEN_URL: 'postgres://u@db:5432/bridle' }).database).toMatchObject({
      url: 'postgres://u@pooler:6432/bridle',
      listenUrl: 'postgres://u@db:5432/bridle',
    });
    expect(() => loadConfig({ ...server, DATABASE_LISTEN_URL: 'mysql://db' })).toThrow(
      'Invalid configuration: DATABASE_LISTEN_URL must be a postgres:// or postgresql:// URL',
    );
  });

  it('sizes the server pool with DATABASE_POOL_MAX and sends statements unnamed with DATABASE_PREPARED_STATEMENTS=false', () => {
    const server = { DATABASE_URL: 'postgres://u@db:5432/bridle' };
    expect(loadConfig({ ...server, DATABASE_POOL_MAX: '4', DATABASE_PREPARED_STATEMENTS: 'false' }).database).toEqual({
      kind: 'server',
      url: 'postgres://u@db:5432/bridle',
      poolMax: 4,
      preparedStatements: false,
      listenUrl: 'postgres://u@db:5432/bridle',
    });
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).database).toMatchObject({ kind: 'embedded', preparedStatements: false });
  });

  it.each(['0', '1', '1001', '-5', '2.5', 'ten', '1e2'])('refuses DATABASE_POOL_MAX=%s, naming it', (value) => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db:5432/bridle', DATABASE_POOL_MAX: value })).toThrow(
      new ConfigError('DATABASE_POOL_MAX', `must be a whole number from 2 to 1000, got "${value}"`),
    );
    // Checked without a server too, so the value is known good before the move to one.
    expect(() => loadConfig({ DATABASE_POOL_MAX: value })).toThrow(/^Invalid configuration: DATABASE_POOL_MAX /);
  });

  it('refuses a DATABASE_PREPARED_STATEMENTS other than true or false, naming it', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db:5432/bridle', DATABASE_PREPARED_STATEMENTS: 'off' })).toThrow(
      'Invalid configuration: DATABASE_PREPARED_STATEMENTS must be one of true, false, got "off"',
    );
  });

  it('reads an OpenAI-compatible provider, and never puts its key in an error', () => {
    expect(
      loadConfig({
        LLM_PROVIDER: 'openai',
        OPENAI_API_KEY: 'sk-secret',
        OPENAI_MODEL: 'llama3',
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      }).llm,
    ).toEqual({
      provider: 'openai',
      apiKey: 'sk-secret',
      model: 'llama3',
      baseUrl: 'http://127.0.0.1:11434/v1',
      timeoutMs: 20_000,
      maxRetries: 2,
      retryMaxWaitMs: 5_000,
    });
    expect(() => loadConfig({ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sk-secret') as string }),
    );
  });

  it('settles interrupted chat turns every minute unless CHAT_SWEEP_INTERVAL_MS says otherwise', () => {
    expect(loadConfig({}).chatSweepIntervalMs).toBe(60_000);
    expect(loadConfig({ CHAT_SWEEP_INTERVAL_MS: '500' }).chatSweepIntervalMs).toBe(500);
  });

  it('reads the limits of untrusted input and their defaults', () => {
    const defaults = loadConfig({});
    expect(defaults.agentLimits).toMatchObject({ maxToolArgumentBytes: 16_384, maxReplyChars: 500 });
    expect(defaults.llmSampling).toEqual({ temperature: 0, maxTokens: 1024 });
    expect(defaults).toMatchObject({
      signInAttemptsPerAccount: 10,
      mcpRateLimitPerMinute: 120,
      trustProxy: false,
      metricsToken: undefined,
    });
    const set = loadConfig({
      AGENT_MAX_TOOL_ARGUMENT_BYTES: '1024',
      AGENT_MAX_REPLY_CHARS: '2048',
      LLM_TEMPERATURE: '0.7',
      LLM_MAX_TOKENS: '500',
      SIGN_IN_ATTEMPTS_PER_ACCOUNT: '3',
      MCP_RATE_LIMIT_PER_MINUTE: '30',
      METRICS_TOKEN: 'a-long-enough-token',
    });
    expect(set.agentLimits).toMatchObject({ maxToolArgumentBytes: 1024, maxReplyChars: 2048 });
    expect(set.llmSampling).toEqual({ temperature: 0.7, maxTokens: 500 });
    expect(set).toMatchObject({ signInAttemptsPerAccount: 3, mcpRateLimitPerMinute: 30, metricsToken: 'a-long-enough-token' });
  });

  it.each([
    ['false', false],
    ['1', 1],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 192.168.1.7', '10.0.0.0/8,192.168.1.7'],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('starts the links it sends with PUBLIC_BASE_URL: localhost on PORT unless set, and required in production', () => {
    expect(loadConfig({}).publicBaseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://bridle.example.com/' }).publicBaseUrl).toBe('https://bridle.example.com');
    expect(loadConfig({ PUBLIC_BASE_URL: ' https://example.com/tools/bridle// ' }).publicBaseUrl).toBe('https://example.com/tools/bridle');
    for (const bad of [
      'bridle.example.com',
      'ftp://bridle.example.com',
      'https://bridle.example.com/?a=1',
      'https://x/#top',
      'https://u:p@x',
    ]) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad })).toThrow(/^Invalid configuration: PUBLIC_BASE_URL must be an http/);
    }
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };
    // Every replica must issue and accept tokens under one issuer and audience; localhost:<PORT> is each replica's own.
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig(production)).toThrow(/^Invalid configuration: PUBLIC_BASE_URL is required when NODE_ENV=production: .*OAuth/);
    expect(() => loadConfig({ ...production, SMTP_URL: 'smtp://mail:25' })).toThrow(/PUBLIC_BASE_URL is required when NODE_ENV=production/);
    expect(loadConfig({ ...production, PUBLIC_BASE_URL: 'https://b.example' }).publicBaseUrl).toBe('https://b.example');
    expect(loadConfig({ ...production, SMTP_URL: 'smtp://mail:25', PUBLIC_BASE_URL: 'https://b.example' }).publicBaseUrl).toBe(
      'https://b.example',
    );
  });

  it('turns email notifications on with SMTP_URL only, from NOTIFY_EMAIL_FROM or else SMTP_FROM, every 15 minutes at most by default', () => {
    expect(loadConfig({}).notifications).toEqual({ email: null, pollMs: 1000 });
    expect(loadConfig({ SMTP_URL: 'smtp://mail:25', SMTP_FROM: 'Bridle <out@example.com>' }).notifications.email).toEqual({
      url: 'smtp://mail:25',
      from: 'Bridle <out@example.com>',
      intervalMinutes: 15,
    });
    const own = loadConfig({
      SMTP_URL: 'smtp://mail:25',
      NOTIFY_EMAIL_FROM: 'Bridle <notify@example.com>',
      NOTIFY_EMAIL_INTERVAL_MINUTES: '0',
    });
    expect(own.notifications.email).toEqual(expect.objectContaining({ from: 'Bridle <notify@example.com>', intervalMinutes: 0 }));
    expect(() => loadConfig({ NOTIFY_EMAIL_FROM: 'Bridle <notify@exa mple>' })).toThrow(
      /^Invalid configuration: NOTIFY_EMAIL_FROM must be an address/,
    );
    expect(() => loadConfig({ NOTIFY_POLL_MS: '10' })).toThrow(
      /^Invalid configuration: NOTIFY_POLL_MS must be a whole number from 100 to 60000/,
    );
  });

  it('caps session renewal at 12 hours after sign-in by default, never below the token lifetime', () => {
    expect(loadConfig({}).sessionMaxAgeSeconds).toBe(43_200);
    expect(loadConfig({ SESSION_MAX_AGE: '604800' }).sessionMaxAgeSeconds).toBe(604_800);
    expect(loadConfig({ JWT_EXPIRES_IN: '86400' }).sessionMaxAgeSeconds).toBe(86_400);
    expect(() => loadConfig({ JWT_EXPIRES_IN: '7200', SESSION_MAX_AGE: '3600' })).toThrow(
      'Invalid configuration: SESSION_MAX_AGE must be at least JWT_EXPIRES_IN (7200), got "3600"',
    );
  });

  it('reads SIGN_UP', () => {
    expect(loadConfig({ SIGN_UP: 'closed' }).signUp).toBe('closed');
    expect(loadConfig({ SIGN_UP: 'open' }).signUp).toBe('open');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, 'PUBLIC_BASE_URL'],
    [{ SIGN_UP: 'invite-only' }, 'SIGN_UP'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ JWT_EXPIRES_IN: '5' }, 'JWT_EXPIRES_IN'],
    [{ SESSION_MAX_AGE: '12h' }, 'SESSION_MAX_AGE'],
    [{ LLM_PROVIDER: 'skynet' }, 'LLM_PROVIDER'],
    [{ LLM_PROVIDER: 'openai' }, 'OPENAI_API_KEY'],
    [{ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x' }, 'OPENAI_MODEL'],
    [{ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x', OPENAI_MODEL: 'm', OPENAI_BASE_URL: 'localhost:11434' }, 'OPENAI_BASE_URL'],
    [{ LLM_PROVIDER: 'azure-openai', AZURE_OPENAI_API_KEY: 'k' }, 'AZURE_OPENAI_ENDPOINT'],
    [
      { LLM_PROVIDER: 'azure-openai', AZURE_OPENAI_API_KEY: 'k', AZURE_OPENAI_ENDPOINT: 'https://x.openai.azure.com' },
      'AZURE_OPENAI_DEPLOYMENT',
    ],
    [{ LLM_MAX_RETRIES: '5' }, 'LLM_MAX_RETRIES'],
    [{ LLM_PROVIDER: 'gemini' }, 'GEMINI_API_KEY'],
    [{ LLM_PROVIDER: 'gemini', GEMINI_API_KEY: 'AIza' }, 'GEMINI_MODEL'],
    [{ AGENT_MAX_ITERATIONS: '0' }, 'AGENT_MAX_ITERATIONS'],
    [{ LLM_PRICE_INPUT_PER_1K: '0.15' }, 'LLM_PRICE_OUTPUT_PER_1K'],
    [{ LLM_PRICE_INPUT_PER_1K: 'cheap', LLM_PRICE_OUTPUT_PER_1K: '1' }, 'LLM_PRICE_INPUT_PER_1K'],
    [{ MCP_DESTRUCTIVE_TOOLS: 'yes' }, 'MCP_DESTRUCTIVE_TOOLS'],
    [{ CHAT_SWEEP_INTERVAL_MS: '10' }, 'CHAT_SWEEP_INTERVAL_MS'],
    [{ AGENT_MAX_TOOL_ARGUMENT_BYTES: '10' }, 'AGENT_MAX_TOOL_ARGUMENT_BYTES'],
    [{ AGENT_MAX_REPLY_CHARS: '1000000' }, 'AGENT_MAX_REPLY_CHARS'],
    [{ LLM_TEMPERATURE: '2.5' }, 'LLM_TEMPERATURE'],
    [{ OFFLINE_STREAM_WORD_DELAY_MS: '5000' }, 'OFFLINE_STREAM_WORD_DELAY_MS'],
    [{ LLM_TEMPERATURE: '-1' }, 'LLM_TEMPERATURE'],
    [{ LLM_MAX_TOKENS: '4' }, 'LLM_MAX_TOKENS'],
    [{ CHAT_DAILY_TOKEN_BUDGET: '10' }, 'CHAT_DAILY_TOKEN_BUDGET'],
    [{ CHAT_DAILY_COST_BUDGET: '5' }, 'CHAT_DAILY_COST_BUDGET'],
    [{ SIGN_IN_ATTEMPTS_PER_ACCOUNT: '0' }, 'SIGN_IN_ATTEMPTS_PER_ACCOUNT'],
    [{ MCP_RATE_LIMIT_PER_MINUTE: 'many' }, 'MCP_RATE_LIMIT_PER_MINUTE'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'everyone' }, 'TRUST_PROXY'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
  ])('refuses %j naming %s', (env, variable) => {
    const attempt = () => loadConfig(env);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
