import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, ROLES, type Role } from '../../../domain/identity/user';

export class RegisterRequestDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: EMAIL_MAX_LENGTH })
  @MaxLength(EMAIL_MAX_LENGTH)
  @IsString()
  email!: string;

  @ApiProperty({ example: 'correct horse battery', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })
  @MaxLength(PASSWORD_MAX_LENGTH)
  @MinLength(PASSWORD_MIN_LENGTH)
  @IsString()
  password!: string;
}

export class LoginRequestDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: EMAIL_MAX_LENGTH })
  @MaxLength(EMAIL_MAX_LENGTH)
  @IsString()
  email!: string;

  @ApiProperty({ example: 'correct horse battery', maxLength: PASSWORD_MAX_LENGTH })
  @MaxLength(PASSWORD_MAX_LENGTH)
  @IsString()
  password!: string;
}

export class ChangePasswordRequestDto {
  @ApiProperty({ example: 'correct horse battery', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })
  @MaxLength(PASSWORD_MAX_LENGTH)
  @MinLength(PASSWORD_MIN_LENGTH)
  @IsString()
  currentPassword!: string;

  @ApiProperty({ example: 'battery staple horse correct', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })
  @MaxLength(PASSWORD_MAX_LENGTH)
  @MinLength(PASSWORD_MIN_LENGTH)
  @IsString()
  newPassword!: string;
}

export class AccountResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'ada@example.com' })
  email!: string;

  @ApiProperty({ enum: ROLES })
  role!: Role;
}

export class DailyBudgetDto {
  @ApiProperty({ type: Number, nullable: true, description: 'Per UTC day; null: no such budget' })
  dailyLimit!: number | null;

  @ApiProperty({ description: 'Used today, model calls under way included' })
  usedToday!: number;
}

export class MonthBudgetDto {
  @ApiProperty({ example: '2026-12', description: 'The UTC calendar month' })
  month!: string;

  @ApiProperty({ example: 'EUR', description: "The prices' currency (LLM_PRICES_CURRENCY)" })
  currency!: string;

  @ApiProperty({ example: 8.12, description: 'Spent this month at the prices, calls under way included; rounded half up to the cent' })
  spent!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 10,
    description: 'Their budget for the month: their own (set by an admin), else CHAT_MONTHLY_BUDGET; null: none',
  })
  budget!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 81,
    description: 'The whole percent of the budget used, rounded down; null without a budget',
  })
  percent!: number | null;
}

export class ChatBudgetDto {
  @ApiProperty({ type: DailyBudgetDto, description: 'Chat tokens (CHAT_DAILY_TOKEN_BUDGET)' })
  tokens!: DailyBudgetDto;

  @ApiProperty({ type: DailyBudgetDto, description: 'Their cost at the configured prices (CHAT_DAILY_COST_BUDGET), unrounded' })
  cost!: DailyBudgetDto;

  @ApiProperty({ type: MonthBudgetDto, nullable: true, description: 'This month in money; null when no model is priced (LLM_PRICES)' })
  month!: MonthBudgetDto | null;
}

export class MeResponseDto extends AccountResponseDto {
  @ApiProperty({ type: ChatBudgetDto })
  chatBudget!: ChatBudgetDto;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'JWT to send as `Authorization: Bearer <accessToken>`' })
  accessToken!: string;

  @ApiProperty({ enum: ['Bearer'] })
  tokenType!: 'Bearer';

  @ApiProperty({ description: 'Lifetime of the token in seconds', example: 3600 })
  expiresIn!: number;

  @ApiProperty({ format: 'uuid' })
  userId!: string;
}
