import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** SQL is written one way: see src/infrastructure/persistence/sql.ts. */
const QUERY_CALL = {
  selector: "CallExpression[callee.property.name='query']",
  message: 'Write SQL with the sql tag and run it with selectRows, selectRow, changeRows or run (persistence/sql.ts).',
};
/** One writer per table: see docs/decisions/0013-rules-in-sql.md. */
const TABLE_WRITERS = ['src/infrastructure/persistence/tables/audit-log.ts', 'src/infrastructure/persistence/tables/decision-logs.ts'];
const WRITE_OF_A_WRITTEN_TABLE = {
  selector: String.raw`TemplateElement[value.raw=/(INSERT INTO|UPDATE|DELETE FROM)\s+(audit_log|decision_logs)\b/]`,
  message:
    'audit_log is written by AuditAppender (persistence/tables/audit-log.ts), decision_logs by persistence/tables/decision-logs.ts: call them.',
};

export default tseslint.config(
  { ignores: ['dist/', 'dist-compiled/', 'dist-bench/', 'dist-test*/', 'node_modules/', 'coverage/', 'data/', 'artifacts/', 'web/dist/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'error',
      // One way each for optional fields and numbers from text: see src/interfaces/http/shared/fields.ts.
      'no-restricted-imports': [
        'error',
        {
          name: 'class-validator',
          importNames: ['IsOptional'],
          message: 'Use Optional() or OptionalOrNull() from interfaces/http/shared/fields: IsOptional lets null through.',
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='Type'] > ArrowFunctionExpression > Identifier[name='Number']",
          message: 'Use ToInteger() from interfaces/http/shared/fields for numbers from text: Number() takes 0x2 and 4e0.',
        },
      ],
    },
  },
  {
    // Application code logs through its own port (application/shared/ports/logger.port.ts).
    files: ['src/application/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { name: '@nestjs/common', importNames: ['Logger'], message: 'Inject the Logger port from application/shared/ports/logger.port.' },
      ],
    },
  },
  {
    files: ['src/infrastructure/**/*.ts'],
    ignores: ['src/infrastructure/persistence/sql.ts', 'src/infrastructure/persistence/migrations/**', ...TABLE_WRITERS],
    rules: { 'no-restricted-syntax': ['error', QUERY_CALL, WRITE_OF_A_WRITTEN_TABLE] },
  },
  { files: TABLE_WRITERS, rules: { 'no-restricted-syntax': ['error', QUERY_CALL] } },
  {
    // Regular expressions read hostile text (an MCP argument, a URL, a chat message): each must run in
    // time linear in it (docs/security.md#untrusted-text-in-linear-time). Tests and benches read their own.
    files: ['src/**', 'web/src/**', 'scripts/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignorePartial: false }],
    },
  },
  {
    // The web console runs in the browser and is type-checked by web/tsconfig.json.
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Web-first: a browser test reads the page through eventually() (test/support/browser.ts), which
    // reads again until the assertion passes; a read awaited once sees the page as it was (docs/testing.md).
    files: ['test/browser/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: String.raw`:not(ExpressionStatement) > AwaitExpression > CallExpression[callee.property.name=/^(textContent|innerText|innerHTML|inputValue|allTextContents|allInnerTexts|getAttribute|isVisible|isHidden|isChecked|isEnabled|isDisabled|isEditable|count|title|evaluate|evaluateAll|boundingBox)$/]`,
          message:
            'Read the page with eventually(() => …).toX(…) from test/support/browser.ts: the page answers an action in its own time.',
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.cjs', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  // Layout is Prettier's (npm run format; checked by npm run lint): no lint rule argues with it.
  prettier,
);
