import { type BeforeApplicationShutdown, type FactoryProvider, Injectable, Module } from '@nestjs/common';
import { PolicyGate } from '../application/policy/policy-gate';
import { PolicyBasis, PolicyProvider } from '../application/policy/policy-provider';
import { PolicyAccounts } from '../application/policy/ports/policy-accounts.port';
import { PolicyStore } from '../application/policy/ports/policy-store.port';
import { POLICY_RECHECK_INTERVAL_MS, StoredPolicy } from '../application/policy/stored-policy';
import { FleetBus } from '../application/shared/ports/fleet-bus.port';
import { Logger } from '../application/shared/ports/logger.port';
import { TodoTools } from '../application/todo/tools/todo-tools';
import { defaultPolicy, policyCatalogue } from '../domain/policy/default-policy';
import { AppConfig } from '../infrastructure/config/app-config';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { DatabasePolicyAccounts } from '../infrastructure/persistence/repositories/database-policy-accounts';
import { PostgresPolicyStore } from '../infrastructure/persistence/repositories/postgres-policy-store';
import { MonthlyBudgetsModule } from './monthly-budgets.module';
import { TodoToolsModule } from './todo-tools.module';

/** Stops listening for new versions before the bus closes (PersistenceModule's FleetBusLifecycle). */
@Injectable()
class StoredPolicyLifecycle implements BeforeApplicationShutdown {
  constructor(private readonly policy: StoredPolicy) {}

  beforeApplicationShutdown(): void {
    this.policy.stop();
  }
}

/**
 * The timer that reads a newer version in case the bus's message was lost: on a PostgreSQL
 * server only. The embedded database belongs to one process, whose in-process bus loses
 * nothing, and no other process can store a version there.
 */
function recheckOnServer(): FactoryProvider {
  const recheck = periodicJobProvider({
    what: 'checking for a newer policy version',
    context: 'Policy',
    uses: StoredPolicy,
    intervalMs: () => POLICY_RECHECK_INTERVAL_MS,
    run: (policy) => policy.refresh(),
  });
  return {
    ...recheck,
    useFactory: (config: AppConfig, policy: StoredPolicy) => (config.database.kind === 'server' ? recheck.useFactory(config, policy) : {}),
  };
}

/**
 * The policy every tool call is decided by (docs/policies.md): the newest version an admin
 * stored (`policy_versions`), else the built-in one. Every process that loads this module (the
 * app, a worker) reads it before it serves anything, holds it compiled in memory, and reads
 * a newer one when the fleet bus says there is one, after the bus reconnects, and (on a
 * server) every POLICY_RECHECK_INTERVAL_MS in case a message was lost.
 */
@Module({
  imports: [MonthlyBudgetsModule, TodoToolsModule],
  providers: [
    {
      provide: PolicyBasis,
      useFactory: (config: AppConfig, tools: TodoTools): PolicyBasis => {
        const catalogue = policyCatalogue(tools.definitions);
        return new PolicyBasis(catalogue, defaultPolicy(catalogue, config.mcpDestructiveTools));
      },
      inject: [AppConfig, TodoTools],
    },
    { provide: PolicyStore, useClass: PostgresPolicyStore },
    { provide: PolicyAccounts, useClass: DatabasePolicyAccounts },
    {
      provide: StoredPolicy,
      // Awaited: the app starts with the version in force already compiled, so current() never waits.
      useFactory: async (basis: PolicyBasis, store: PolicyStore, bus: FleetBus, logger: Logger) => {
        const policy = new StoredPolicy(basis, store, bus, logger);
        await policy.start();
        return policy;
      },
      inject: [PolicyBasis, PolicyStore, FleetBus, Logger],
    },
    { provide: PolicyProvider, useExisting: StoredPolicy },
    recheckOnServer(),
    StoredPolicyLifecycle,
    PolicyGate,
  ],
  exports: [PolicyBasis, PolicyProvider, PolicyGate, PolicyStore, PolicyAccounts, StoredPolicy],
})
export class PolicyModule {}
