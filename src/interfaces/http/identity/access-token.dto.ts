import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import {
  isActive,
  type PersonalAccessToken,
  TOKEN_DEFAULT_DAYS,
  TOKEN_MAX_DAYS,
  TOKEN_NAME_MAX_LENGTH,
} from '../../../domain/identity/personal-access-token';
import { type Scope, SCOPES } from '../../../domain/identity/scopes';
import { Optional } from '../shared/fields';
import { UserPathDto } from '../todo/task.dto';

export class AccessTokenPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "One of the user's tokens" })
  @IsUUID(undefined, { message: 'tokenId must be a UUID' })
  tokenId!: string;
}

export class CreateAccessTokenRequestDto {
  @ApiProperty({ example: 'Backup script', maxLength: TOKEN_NAME_MAX_LENGTH, description: 'What the token is for, to tell tokens apart' })
  @MaxLength(TOKEN_NAME_MAX_LENGTH, { message: `name must be at most ${TOKEN_NAME_MAX_LENGTH} characters` })
  @IsString({ message: 'name must be a string' })
  name!: string;

  @ApiProperty({
    type: [String],
    example: ['tasks:read'],
    description: `Any of ${SCOPES.join(', ')}; \`family:*\` stands for every scope of the family (\`campaigns:*\`). \`tasks:write\` implies \`tasks:read\`.`,
  })
  @ArrayMaxSize(SCOPES.length * 2, { message: `scopes must hold at most ${SCOPES.length * 2} items` })
  @ArrayMinSize(1, { message: 'scopes must name at least one scope' })
  @MaxLength(40, { each: true, message: 'each scope must be at most 40 characters' })
  @IsString({ each: true, message: 'each scope must be a string' })
  @IsArray({ message: 'scopes must be an array of strings' })
  scopes!: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: TOKEN_MAX_DAYS, default: TOKEN_DEFAULT_DAYS, description: 'Days until it expires' })
  @Optional()
  @Max(TOKEN_MAX_DAYS, { message: `expiresInDays must be at most ${TOKEN_MAX_DAYS}` })
  @Min(1, { message: 'expiresInDays must be at least 1' })
  @IsInt({ message: 'expiresInDays must be a whole number' })
  expiresInDays?: number;
}

const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;

export class AccessTokenDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: SCOPES, isArray: true })
  scopes!: Scope[];

  @ApiProperty({ example: 'x9Qa', description: "The secret's last four characters" })
  hint!: string;

  @ApiProperty({ enum: TOKEN_STATUSES })
  status!: (typeof TOKEN_STATUSES)[number];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Written at most once a minute per token' })
  lastUsedAt!: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'The client address of the latest use' })
  lastUsedAddress!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt!: string | null;

  static of(token: PersonalAccessToken, now: Date): AccessTokenDto {
    return {
      id: token.id,
      name: token.name,
      scopes: [...token.scopes],
      hint: token.hint,
      status: token.revokedAt ? 'revoked' : isActive(token, now) ? 'active' : 'expired',
      createdAt: token.createdAt.toISOString(),
      expiresAt: token.expiresAt.toISOString(),
      lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
      lastUsedAddress: token.lastUsedAddress,
      revokedAt: token.revokedAt?.toISOString() ?? null,
    };
  }
}

export class CreatedAccessTokenDto extends AccessTokenDto {
  @ApiProperty({
    example: 'bridle_pat_3q2-7wE…',
    description: 'The secret, for `Authorization: Bearer <token>`. Shown in this answer only: Bridle keeps its hash.',
  })
  token!: string;
}
