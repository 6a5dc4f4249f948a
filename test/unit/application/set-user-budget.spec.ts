import { GetUserBudgetUseCase } from '../../../src/application/budgets/get-user-budget.use-case';
import { SetUserBudgetUseCase } from '../../../src/application/budgets/set-user-budget.use-case';
import { BudgetAccountNotFoundError, BudgetNotPricedError } from '../../../src/domain/agent/monthly-budget';
import { FixedClock } from '../../fakes/fixed-clock';
import { FixedMonthlyBudgets } from '../../fakes/policy';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';

const ADMIN = '11111111-1111-4111-8111-111111111111';
const ADA = '22222222-2222-4222-8222-222222222222';

/** Budgets that take every person's own budget, for one account. */
class OneAccount extends FixedMonthlyBudgets {
  readonly set: (bigint | null)[] = [];

  override setOwn(userId: string, monthly: bigint | null): Promise<boolean> {
    if (userId !== ADA) return Promise.resolve(false);
    this.set.push(monthly);
    return Promise.resolve(true);
  }
}

describe(SetUserBudgetUseCase.name, () => {
  const clock = new FixedClock();
  const sutOn = (budgets: FixedMonthlyBudgets, audit: RecordingAuditLog) =>
    new SetUserBudgetUseCase(budgets, audit, clock, new GetUserBudgetUseCase(budgets, clock));

  it('refuses a budget in money where no model is priced, naming monthly, and audits nothing: nothing was attempted', async () => {
    const audit = new RecordingAuditLog();
    const sut = sutOn(new OneAccount(null), audit);
    await expect(sut.execute({ adminId: ADMIN, userId: ADA, monthly: 10n })).rejects.toThrow(BudgetNotPricedError);
    await expect(sut.execute({ adminId: ADMIN, userId: ADA, monthly: 10n })).rejects.toMatchObject({ field: 'monthly' });
    expect(audit.rows).toEqual([]);
  });

  it('sets the budget audited as set_budget, and records an unknown account as a rejected attempt', async () => {
    const audit = new RecordingAuditLog();
    const budgets = new OneAccount('EUR');
    const sut = sutOn(budgets, audit);
    await sut.execute({ adminId: ADMIN, userId: ADA, monthly: 7_500_000_000_000n });
    expect(budgets.set).toEqual([7_500_000_000_000n]);
    await expect(sut.execute({ adminId: ADMIN, userId: ADMIN, monthly: null })).rejects.toThrow(BudgetAccountNotFoundError);
    expect(audit.rows.map((row) => [row.status, row.entry.tool, row.entry.arguments])).toEqual([
      ['pending', 'set_budget', { userId: ADA, monthly: '7.5' }],
      ['succeeded', 'set_budget', { userId: ADA, monthly: '7.5' }],
      ['pending', 'set_budget', { userId: ADMIN, monthly: null }],
      ['rejected', 'set_budget', { userId: ADMIN, monthly: null }],
    ]);
  });
});
