import { ApiProperty } from '@nestjs/swagger';
import { IsNumber, IsUUID, Max, Min, ValidateIf } from 'class-validator';
import type { UserBudget } from '../../../application/budgets/get-user-budget.use-case';
import { type Amount, centsValue, decimalText } from '../../../domain/agent/money';
import { MONTHLY_BUDGET_MAX } from '../../../domain/agent/monthly-budget';

export class UserBudgetPathDto {
  @ApiProperty({ format: 'uuid', description: "The person's account id" })
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId!: string;
}

export class SetUserBudgetRequestDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: MONTHLY_BUDGET_MAX,
    example: 10,
    description: "The person's own budget for each UTC month, in the prices' currency; null removes it (CHAT_MONTHLY_BUDGET applies again)",
  })
  // Required, and null is a value of its own: absent is refused as not a number.
  @ValidateIf((_object: object, value: unknown) => value !== null)
  @Max(MONTHLY_BUDGET_MAX, { message: `monthly must be an amount from 0 to ${MONTHLY_BUDGET_MAX}, or null` })
  @Min(0, { message: `monthly must be an amount from 0 to ${MONTHLY_BUDGET_MAX}, or null` })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'monthly must be a number (the amount), or null' })
  monthly!: number | null;
}

export class UserMonthDto {
  @ApiProperty({ example: '2026-12', description: 'The UTC calendar month' })
  month!: string;

  @ApiProperty({ example: 'EUR' })
  currency!: string;

  @ApiProperty({ example: 8.12, description: 'Spent this month (settled calls), rounded half up to the cent' })
  spent!: number;

  @ApiProperty({ example: 0.02, description: 'Held by calls under way, rounded half up to the cent' })
  reserved!: number;

  @ApiProperty({ example: '8.1234567', description: 'Spent this month, exactly (the price table applied to the recorded tokens)' })
  spentExact!: string;

  @ApiProperty({ type: Number, nullable: true, example: 10, description: 'The budget in force: their own, else the default; null: none' })
  budget!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 81, description: 'The whole percent of it spent or held, rounded down' })
  percent!: number | null;
}

export class UserBudgetDto {
  @ApiProperty({ format: 'uuid' })
  userId!: string;

  @ApiProperty({ type: Number, nullable: true, description: 'Their own monthly budget, set by an admin; null: the default applies' })
  own!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'CHAT_MONTHLY_BUDGET; null: none' })
  default!: number | null;

  @ApiProperty({ type: UserMonthDto, nullable: true, description: 'This month; null when no model is priced (LLM_PRICES)' })
  month!: UserMonthDto | null;

  static of(budget: UserBudget): UserBudgetDto {
    const { month } = budget;
    return {
      userId: budget.userId,
      own: amount(budget.own),
      default: amount(budget.default),
      month: month && {
        month: month.month,
        currency: month.currency,
        spent: centsValue(month.spent),
        reserved: centsValue(month.reserved),
        spentExact: decimalText(month.spent),
        budget: amount(month.budget),
        percent: month.percent,
      },
    };
  }
}

function amount(value: Amount | null): number | null {
  return value === null ? null : Number(decimalText(value));
}
