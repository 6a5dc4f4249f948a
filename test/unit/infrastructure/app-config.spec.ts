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
    expect([...config.adminEmails]).toEqual([]);
  });

  it('uses a PostgreSQL server when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/bridle' }).database).toEqual({
      kind: 'server',
      url: 'postgres://u@db:5432/bridle',
    });
  });

  it('reads an OpenAI-compatible provider, and never puts its key in an error', () => {
    expect(
      loadConfig({ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-secret', OPENAI_MODEL: 'llama3', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }).llm,
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

  it('normalises ADMIN_EMAILS', () => {
    expect([...loadConfig({ ADMIN_EMAILS: ' Root@Example.com, ops@example.com ,' }).adminEmails]).toEqual([
      'root@example.com',
      'ops@example.com',
    ]);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ ADMIN_EMAILS: 'root@example.com, nobody' }, 'ADMIN_EMAILS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ JWT_EXPIRES_IN: '5' }, 'JWT_EXPIRES_IN'],
    [{ LLM_PROVIDER: 'skynet' }, 'LLM_PROVIDER'],
    [{ LLM_PROVIDER: 'openai' }, 'OPENAI_API_KEY'],
    [{ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x' }, 'OPENAI_MODEL'],
    [{ LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x', OPENAI_MODEL: 'm', OPENAI_BASE_URL: 'localhost:11434' }, 'OPENAI_BASE_URL'],
    [{ LLM_PROVIDER: 'azure-openai', AZURE_OPENAI_API_KEY: 'k' }, 'AZURE_OPENAI_ENDPOINT'],
    [{ LLM_PROVIDER: 'azure-openai', AZURE_OPENAI_API_KEY: 'k', AZURE_OPENAI_ENDPOINT: 'https://x.openai.azure.com' }, 'AZURE_OPENAI_DEPLOYMENT'],
    [{ LLM_MAX_RETRIES: '5' }, 'LLM_MAX_RETRIES'],
    [{ LLM_PROVIDER: 'gemini' }, 'GEMINI_API_KEY'],
    [{ LLM_PROVIDER: 'gemini', GEMINI_API_KEY: 'AIza' }, 'GEMINI_MODEL'],
    [{ AGENT_MAX_ITERATIONS: '0' }, 'AGENT_MAX_ITERATIONS'],
    [{ LLM_PRICE_INPUT_PER_1K: '0.15' }, 'LLM_PRICE_OUTPUT_PER_1K'],
    [{ LLM_PRICE_INPUT_PER_1K: 'cheap', LLM_PRICE_OUTPUT_PER_1K: '1' }, 'LLM_PRICE_INPUT_PER_1K'],
  ])('refuses %j naming %s', (env, variable) => {
    const attempt = () => loadConfig(env);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
