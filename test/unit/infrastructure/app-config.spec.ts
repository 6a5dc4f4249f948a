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
  ])('refuses %j naming %s', (env, variable) => {
    const attempt = () => loadConfig(env);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
