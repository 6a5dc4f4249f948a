import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsObject, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import {
  type Campaign,
  CAMPAIGN_NAME_MAX_LENGTH,
  CAMPAIGN_STATUSES,
  type CampaignStatus,
  DAILY_LIMIT_MAX,
  DEFAULT_DAILY_LIMIT,
  WEEKLY_LIMIT_MAX,
} from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind, type BuiltInKind } from '../../../domain/outreach/outreach-task';
import { QUOTA_WINDOWS, type QuotaWindow } from '../../../domain/outreach/quota';
import { APPROVAL_FIRST_N_MAX, APPROVAL_MODES, type ApprovalMode, DEFAULT_APPROVAL_FIRST_N } from '../../../domain/outreach/review';
import {
  BriefField,
  CampaignBriefDto,
  CampaignBriefRequestDto,
  MessageTemplatesDto,
  MessageTemplatesRequestDto,
  TemplatesField,
} from './campaign-brief.dto';
import { UserPathDto } from '../todo/task.dto';
import { Optional, OptionalOrNull } from '../shared/fields';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

export class CampaignPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "One of the user's campaigns" })
  @IsUUID(undefined, { message: 'campaignId must be a UUID' })
  campaignId!: string;
}

/** A daily limit in a request; the message names the full path, e.g. `dailyLimits.email`. */
function DailyLimit(kind: ActionKind): PropertyDecorator {
  const message = `dailyLimits.${kind} must be a whole number from 0 to ${DAILY_LIMIT_MAX}`;
  return applyDecorators(
    ApiPropertyOptional({ minimum: 0, maximum: DAILY_LIMIT_MAX, example: DEFAULT_DAILY_LIMIT }),
    Optional(),
    Max(DAILY_LIMIT_MAX, { message }),
    Min(0, { message }),
    IsInt({ message }),
  );
}

export class DailyLimitsRequestDto {
  @DailyLimit('profile_lookup')
  profile_lookup?: number;

  @DailyLimit('linkedin_message')
  linkedin_message?: number;

  @DailyLimit('email')
  email?: number;
}

/** A weekly limit in a request: a whole number, or null to remove it. */
function WeeklyLimit(kind: ActionKind): PropertyDecorator {
  const message = `weeklyLimits.${kind} must be a whole number from 0 to ${WEEKLY_LIMIT_MAX}, or null for none`;
  return applyDecorators(
    ApiPropertyOptional({ type: Number, nullable: true, minimum: 0, maximum: WEEKLY_LIMIT_MAX, example: 200 }),
    OptionalOrNull(),
    Max(WEEKLY_LIMIT_MAX, { message }),
    Min(0, { message }),
    IsInt({ message }),
  );
}

export class WeeklyLimitsRequestDto {
  @WeeklyLimit('profile_lookup')
  profile_lookup?: number | null;

  @WeeklyLimit('linkedin_message')
  linkedin_message?: number | null;

  @WeeklyLimit('email')
  email?: number | null;
}

const WEEKLY_LIMITS_DESCRIPTION =
  'Actions per rolling week (the UTC day and the 6 before it) for this campaign, per kind; none (null) unless set. ' +
  "The owner's own weekly limits across campaigns apply as well. On PATCH, only the kinds given change; null removes one.";

/** weeklyLimits in a request; the domain checks it again (draftCampaign, renameOrRelimit). */
function WeeklyLimitsField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: WeeklyLimitsRequestDto, description: WEEKLY_LIMITS_DESCRIPTION }),
    Optional(),
    ValidateNested(),
    Type(() => WeeklyLimitsRequestDto),
    IsObject({ message: 'weeklyLimits must be an object' }),
  );
}

const LIMITS_DESCRIPTION =
  'Limits as rows, for any kind a channel performs (a channel added later, such as sms, has no named field): ' +
  'at most max actions of kind per window (day: the UTC day; week: the rolling week). null as max removes the limit ' +
  "(a day's goes back to the default). Applied after dailyLimits and weeklyLimits; on PATCH, only the rows given change.";

export class LimitRequestDto {
  @ApiProperty({ example: 'sms', description: 'A kind a channel performs: profile_lookup, linkedin_message, email, or a channel’s own' })
  kind!: string;

  @ApiProperty({ enum: QUOTA_WINDOWS })
  window!: QuotaWindow;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: WEEKLY_LIMIT_MAX, example: 20 })
  max!: number | null;
}

/** limits in a request: a list the domain checks row by row, each problem naming its field (limits[0].kind). */
function LimitsField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [LimitRequestDto], description: LIMITS_DESCRIPTION }),
    Optional(),
    IsArray({ message: 'limits must be a list of {kind, window, max}' }),
  );
}

const DAILY_LIMITS_DESCRIPTION =
  `Actions per UTC day for this campaign, per kind (default ${DEFAULT_DAILY_LIMIT} each); ` +
  "the owner's own daily limits across campaigns apply as well.";

const APPROVAL_MODE_DESCRIPTION =
  'Review before send. none: channel actions run once checked; first_n: the first approvalFirstN actions of each kind ' +
  '(profile look-up, LinkedIn message, email) wait as drafts for the owner, then that kind runs alone; all: every one waits';

/** approvalMode and approvalFirstN in a request; the domain checks them again (approvalPolicyOf). */
function ApprovalModeField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: APPROVAL_MODES, default: 'none', description: APPROVAL_MODE_DESCRIPTION }),
    Optional(),
    IsIn(APPROVAL_MODES, { message: `approvalMode must be one of ${APPROVAL_MODES.join(', ')}` }),
  );
}

function ApprovalFirstNField(): PropertyDecorator {
  const message = `approvalFirstN must be a whole number from 1 to ${APPROVAL_FIRST_N_MAX}`;
  return applyDecorators(
    ApiPropertyOptional({
      minimum: 1,
      maximum: APPROVAL_FIRST_N_MAX,
      default: DEFAULT_APPROVAL_FIRST_N,
      description: 'With approvalMode first_n: how many actions of each kind wait for approval',
    }),
    Optional(),
    Max(APPROVAL_FIRST_N_MAX, { message }),
    Min(1, { message }),
    IsInt({ message }),
  );
}

export class CreateCampaignRequestDto {
  @ApiProperty({ example: 'Q3 founders', minLength: 1, maxLength: CAMPAIGN_NAME_MAX_LENGTH })
  @Transform(trim)
  @MaxLength(CAMPAIGN_NAME_MAX_LENGTH)
  @MinLength(1, { message: 'name must not be empty' })
  @IsString()
  name!: string;

  @ApiPropertyOptional({ type: DailyLimitsRequestDto, description: DAILY_LIMITS_DESCRIPTION })
  @Optional()
  @ValidateNested()
  @Type(() => DailyLimitsRequestDto)
  @IsObject({ message: 'dailyLimits must be an object' })
  dailyLimits?: DailyLimitsRequestDto;

  @WeeklyLimitsField()
  weeklyLimits?: WeeklyLimitsRequestDto;

  @LimitsField()
  limits?: unknown[];

  @ApprovalModeField()
  approvalMode?: ApprovalMode;

  @ApprovalFirstNField()
  approvalFirstN?: number;

  @BriefField()
  brief?: CampaignBriefRequestDto;

  @TemplatesField()
  templates?: MessageTemplatesRequestDto;
}

export class UpdateCampaignRequestDto {
  @ApiPropertyOptional({ example: 'Q3 founders (EU)', minLength: 1, maxLength: CAMPAIGN_NAME_MAX_LENGTH })
  @Optional()
  @Transform(trim)
  @MaxLength(CAMPAIGN_NAME_MAX_LENGTH)
  @MinLength(1, { message: 'name must not be empty' })
  @IsString()
  name?: string;

  @ApiPropertyOptional({ type: DailyLimitsRequestDto, description: 'Only the kinds given change' })
  @Optional()
  @ValidateNested()
  @Type(() => DailyLimitsRequestDto)
  @IsObject({ message: 'dailyLimits must be an object' })
  dailyLimits?: DailyLimitsRequestDto;

  @WeeklyLimitsField()
  weeklyLimits?: WeeklyLimitsRequestDto;

  @LimitsField()
  limits?: unknown[];

  @ApprovalModeField()
  approvalMode?: ApprovalMode;

  @ApprovalFirstNField()
  approvalFirstN?: number;

  @BriefField()
  brief?: CampaignBriefRequestDto;

  @TemplatesField()
  templates?: MessageTemplatesRequestDto;
}

export class WeeklyLimitsDto {
  @ApiProperty({ type: Number, nullable: true, example: null }) profile_lookup!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 200 }) linkedin_message!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: null }) email!: number | null;
}

export class DailyLimitsDto {
  @ApiProperty({ example: DEFAULT_DAILY_LIMIT }) profile_lookup!: number;
  @ApiProperty({ example: DEFAULT_DAILY_LIMIT }) linkedin_message!: number;
  @ApiProperty({ example: DEFAULT_DAILY_LIMIT }) email!: number;
}

export class CampaignResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Q3 founders' })
  name!: string;

  @ApiProperty({ enum: CAMPAIGN_STATUSES, description: 'draft → active ⇄ paused → completed (by the worker, when no task is left)' })
  status!: CampaignStatus;

  @ApiProperty({ type: DailyLimitsDto, description: "Per kind; a channel's own kind (set through limits) is a key of its own" })
  dailyLimits!: DailyLimitsDto;

  @ApiProperty({
    type: WeeklyLimitsDto,
    description:
      "Per rolling week (the UTC day and the 6 before it); null: none of its own. A channel's own kind is a key where it has one",
  })
  weeklyLimits!: WeeklyLimitsDto;

  @ApiProperty({ enum: APPROVAL_MODES, description: APPROVAL_MODE_DESCRIPTION })
  approvalMode!: ApprovalMode;

  @ApiProperty({
    example: DEFAULT_APPROVAL_FIRST_N,
    description: 'With approvalMode first_n: how many actions of each kind wait for approval',
  })
  approvalFirstN!: number;

  @ApiProperty({ type: CampaignBriefDto, description: 'What the messages say and how; null where not set' })
  brief!: CampaignBriefDto;

  @ApiProperty({ type: MessageTemplatesDto, description: 'Message templates with placeholders; null where not set' })
  templates!: MessageTemplatesDto;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt!: string | null;

  static of(campaign: Campaign): CampaignResponseDto {
    return {
      id: campaign.id,
      name: campaign.name,
      status: campaign.status,
      dailyLimits: withBuiltIn(campaign.dailyLimits, DEFAULT_DAILY_LIMIT),
      weeklyLimits: withBuiltIn(campaign.weeklyLimits, null),
      approvalMode: campaign.approval.mode,
      approvalFirstN: campaign.approval.firstN,
      brief: CampaignBriefDto.of(campaign.brief),
      templates: MessageTemplatesDto.of(campaign.templates),
      createdAt: campaign.createdAt.toISOString(),
      updatedAt: campaign.updatedAt.toISOString(),
      completedAt: campaign.completedAt?.toISOString() ?? null,
    };
  }
}

/** A campaign's limits per kind: the built-in kinds' named fields always, then a channel's own kind where it has one. */
function withBuiltIn<T>(limits: Readonly<Record<ActionKind, T>>, none: T): Record<BuiltInKind, T> & Record<ActionKind, T> {
  return { ...Object.fromEntries(ACTION_KINDS.map((kind) => [kind, none])), ...limits } as Record<BuiltInKind, T> & Record<ActionKind, T>;
}

export class CampaignPageDto {
  @ApiProperty({ type: [CampaignResponseDto], description: 'Newest first' })
  items!: CampaignResponseDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}
