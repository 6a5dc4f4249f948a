import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TokenBudget } from '../application/agent/ports/token-budget.port';
import { GetUserBudgetUseCase } from '../application/budgets/get-user-budget.use-case';
import { SetUserBudgetUseCase } from '../application/budgets/set-user-budget.use-case';
import { PolicyProvider } from '../application/policy/policy-provider';
import { AppConfig } from '../infrastructure/config/app-config';
import { TokenLedger } from '../infrastructure/persistence/repositories/token-ledger';
import { AuditLogModule } from './audit-log.module';
import { MonthlyBudgetsModule } from './monthly-budgets.module';
import { PolicyModule } from './policy.module';

/**
 * The chat's budgets (docs/guarantees.md §11): the ledgers every model call of a turn reserves
 * on (TokenBudget: the day's tokens and cost, the month's spend, whose thresholds are the
 * policy in force's), and a person's own monthly budget, read and set by admins.
 */
@Module({
  imports: [PolicyModule, MonthlyBudgetsModule, AuditLogModule],
  providers: [
    {
      provide: TokenBudget,
      useFactory: (dataSource: DataSource, config: AppConfig, policies: PolicyProvider) =>
        new TokenLedger(
          dataSource,
          config.chatDailyBudget,
          config.prices && {
            defaultMonthly: config.chatMonthlyBudget,
            currency: config.prices.currency,
            thresholds: () => policies.current().budgetThresholds,
          },
        ),
      inject: [DataSource, AppConfig, PolicyProvider],
    },
    GetUserBudgetUseCase,
    SetUserBudgetUseCase,
  ],
  exports: [TokenBudget, MonthlyBudgetsModule, GetUserBudgetUseCase, SetUserBudgetUseCase],
})
export class BudgetsModule {}
