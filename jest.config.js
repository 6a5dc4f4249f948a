/** Five suites: unit (pure, fast), integration (adapters against local fake provider
 * servers), persistence (adapters against a real database), e2e (the real AppModule over HTTP),
 * browser (the web console in Chromium). persistence and e2e run on PGlite by default and
 * against a PostgreSQL server when TEST_POSTGRES_URL is set (see test/support/database.ts). */
const shared = {
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        keepClassNames: true,
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@apidevtools|file-type|load-esm)/)'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: '<rootDir>/test/support/jest-node-environment.cjs',
};

module.exports = {
  // Global, not per project: opening PGlite (initdb) or creating a database, then signing
  // users up (a deliberately slow hash each), can take seconds in beforeAll.
  // Sized for a loaded 2-core machine, where starting an app on a fresh database took over 30 s.
  testTimeout: 90_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.spec.ts'] },
    { ...shared, displayName: 'persistence', testMatch: ['<rootDir>/test/persistence/**/*.spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.spec.ts'] },
    // The web console in Chromium (playwright-core) against the real app on a socket.
    {
      ...shared,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/support/browser.ts',
    },
  ],
};
