/** Five suites: unit (pure, fast), integration (adapters against local fake provider
 * servers), persistence (adapters against a real database), e2e (the real AppModule over HTTP),
 * browser (the web console in Chromium). persistence and e2e run on PGlite by default and
 * against a PostgreSQL server when TEST_POSTGRES_URL is set (see test/support/test-database.ts). */
const shared = {
  transform: {
    // The same options compile the built service in process suites (test/support/built-service.ts).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- Jest reads this file as CommonJS
    '^.+\\.(t|j)sx?$': ['@swc/jest', require('./test/support/swc.json')],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@apidevtools|file-type|load-esm|sql-template-tag)/)'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: '<rootDir>/test/support/jest-node-environment.cjs',
};

/** One migrated database per run, copied per suite (test/support/database-template.ts). */
const withDatabase = {
  globalSetup: '<rootDir>/test/support/database-template.ts',
  globalTeardown: '<rootDir>/test/support/database-template-teardown.ts',
};

module.exports = {
  // For every test and hook. Sized for a 2-core machine shared with a CPU-bound process,
  // where a suite's beforeAll (copying the template, starting the app) can take seconds.
  testTimeout: 60_000,
  // Both cores: the suites wait on sockets and PGlite as much as they compute. Jest's default
  // on 2 cores is one worker.
  maxWorkers: 2,
  // A worker that has run a few suites holds on to memory (each suite loads Nest, PGlite's
  // WebAssembly, the SDKs): past this it is replaced, before its collections slow every test.
  workerIdleMemoryLimit: '700MB',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.spec.ts'] },
    { ...shared, ...withDatabase, displayName: 'persistence', testMatch: ['<rootDir>/test/persistence/**/*.spec.ts'] },
    { ...shared, ...withDatabase, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.spec.ts'] },
    // The web console in Chromium (playwright-core) against the real app on a socket.
    {
      ...shared,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/support/browser.ts',
      globalTeardown: withDatabase.globalTeardown,
    },
  ],
};
