/** The layer rules (docs/architecture.md), checked by `npm run lint`. */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside src/domain: no framework, no node: module, no package.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'application-imports-only-domain',
      comment: 'src/application depends on src/domain and on Injectable/Inject from @nestjs/common only.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: {
        pathNot: ['^src/application/', '^src/domain/', '^node_modules/@nestjs/common/'],
      },
    },
    {
      name: 'nothing-imports-interfaces',
      comment: 'Interfaces (HTTP, MCP endpoint, CLI) are entry points: only composition roots wire them.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/interfaces/', '^src/modules/', '^src/(main|worker|admin|openapi)\\.ts$'] },
      to: { path: '^src/interfaces/' },
    },
    {
      name: 'only-composition-roots-import-modules',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/(main|worker|admin|openapi)\\.ts$'] },
      to: { path: '^src/modules/' },
    },
    {
      name: 'interfaces-reach-adapters-through-ports',
      comment: 'Controllers and the MCP server talk to use cases and ports, never to persistence, model clients or config.',
      severity: 'error',
      from: { path: '^src/interfaces/' },
      to: { path: '^src/infrastructure/' },
    },
    {
      name: 'repositories-stand-alone',
      comment:
        'A repository (a file in persistence/repositories, with the folder of its parts of the same name) imports no other repository: ' +
        'what two of them need of a table, and each table’s one writer, is in persistence/tables (docs/decisions/0013-rules-in-sql.md).',
      severity: 'error',
      from: { path: '^src/infrastructure/persistence/repositories/([^/]+?)(\\.ts$|/)' },
      to: { path: '^src/infrastructure/persistence/repositories/', pathNot: '^src/infrastructure/persistence/repositories/$1(\\.ts$|/)' },
    },
    {
      name: 'only-composition-roots-import-repositories',
      comment: 'Repositories are adapters that a module binds to a port; nothing else imports them (persistence/tables least of all).',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/infrastructure/persistence/repositories/', '^src/modules/', '^src/(main|worker|admin|openapi)\\.ts$'],
      },
      to: { path: '^src/infrastructure/persistence/repositories/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
