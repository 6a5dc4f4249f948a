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

export class ChatBudgetDto {
  @ApiProperty({ type: DailyBudgetDto, description: 'Chat tokens (CHAT_DAILY_TOKEN_BUDGET)' })
  tokens!: DailyBudgetDto;

  @ApiProperty({ type: DailyBudgetDto, description: 'Their cost at the configured prices (CHAT_DAILY_COST_BUDGET)' })
  cost!: DailyBudgetDto;
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
