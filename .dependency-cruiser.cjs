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
