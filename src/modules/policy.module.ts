import { Module } from '@nestjs/common';
import { BuiltInPolicy, PolicyBasis, PolicyProvider } from '../application/policy/policy-provider';
import { TODO_TOOLS } from '../application/todo/tools/todo-tool-definitions';
import { defaultPolicy, policyCatalogue } from '../domain/policy/default-policy';
import { AppConfig } from '../infrastructure/config/app-config';

/** The policy every tool call is decided by (docs/policies.md). */
@Module({
  providers: [
    {
      provide: PolicyBasis,
      useFactory: (config: AppConfig): PolicyBasis => {
        const catalogue = policyCatalogue(TODO_TOOLS);
        return new PolicyBasis(catalogue, defaultPolicy(catalogue, config.mcpDestructiveTools));
      },
      inject: [AppConfig],
    },
    { provide: PolicyProvider, useFactory: (basis: PolicyBasis) => new BuiltInPolicy(basis), inject: [PolicyBasis] },
  ],
  exports: [PolicyBasis, PolicyProvider],
})
export class PolicyModule {}
