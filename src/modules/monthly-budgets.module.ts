import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MonthlyBudgets } from '../application/agent/ports/monthly-budgets.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { PostgresMonthlyBudgets } from '../infrastructure/persistence/repositories/postgres-monthly-budgets';

/** Each person's month as the policy, the person and admins read it (month_ledger, users.monthly_budget). */
@Module({
  providers: [
    {
      provide: MonthlyBudgets,
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new PostgresMonthlyBudgets(dataSource, config.prices?.currency ?? null, config.chatMonthlyBudget),
      inject: [DataSource, AppConfig],
    },
  ],
  exports: [MonthlyBudgets],
})
export class MonthlyBudgetsModule {}
