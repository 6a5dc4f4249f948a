import { Injectable } from '@nestjs/common';
import { type Amount, decimalText } from '../../domain/agent/money';
import { BudgetAccountNotFoundError, BudgetNotPricedError } from '../../domain/agent/monthly-budget';
import { auditedChange } from '../audit/audited-change';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { MonthlyBudgets } from '../agent/ports/monthly-budgets.port';
import { Clock } from '../shared/ports/clock.port';
import { GetUserBudgetUseCase, type UserBudget } from './get-user-budget.use-case';

/**
 * An admin sets a person's own monthly budget (or, with null, removes it: the default applies
 * again). In force for their next model call, on every replica: the ledger reads it in the
 * statement that reserves. Audited like any admin change (auditedChange): `set_budget`,
 * source admin, naming the person and the amount.
 */
@Injectable()
export class SetUserBudgetUseCase {
  constructor(
    private readonly budgets: MonthlyBudgets,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
    private readonly reader: GetUserBudgetUseCase,
  ) {}

  /** @throws BudgetNotPricedError, BudgetAccountNotFoundError */
  async execute(input: { adminId: string; userId: string; monthly: Amount | null }): Promise<UserBudget> {
    if (this.budgets.currency === null) throw new BudgetNotPricedError();
    const entry: ToolAuditEntry = {
      source: 'admin',
      actorId: input.adminId,
      tool: 'set_budget',
      arguments: { userId: input.userId, monthly: input.monthly === null ? null : decimalText(input.monthly) },
      securityEvents: [],
    };
    await auditedChange({ auditLog: this.auditLog, clock: this.clock }, entry, async () => {
      if (!(await this.budgets.setOwn(input.userId, input.monthly))) throw new BudgetAccountNotFoundError();
      return { result: { userId: input.userId }, value: undefined };
    });
    return this.reader.execute({ userId: input.userId });
  }
}
