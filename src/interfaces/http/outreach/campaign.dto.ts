import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import type { CampaignDetails, KindUsage, ScopeUsage } from '../../../application/outreach/campaigns/get-campaign.use-case';
import { LEAD_IMPORT_MAX, type LeadImportReport } from '../../../application/outreach/campaigns/import-leads.use-case';
import type { TaskView } from '../../../application/outreach/ports/campaign-repository.port';
import {
  type Campaign,
  CAMPAIGN_NAME_MAX_LENGTH,
  CAMPAIGN_STATUSES,
  type CampaignStatus,
  DAILY_LIMIT_MAX,
  DEFAULT_DAILY_LIMIT,
  WEEKLY_LIMIT_MAX,
} from '../../../domain/outreach/campaign';
import { MESSAGE_CHANNELS, type MessageChannel } from '../../../domain/outreach/actions';
import { DO_NOT_CONTACT_KINDS, type DoNotContactEntry, type DoNotContactKind } from '../../../domain/outreach/do-not-contact';
import { LEAD_NAME_MAX_LENGTH } from '../../../domain/outreach/lead';
import {
  type ActionKind,
  TASK_STATUSES,
  TASK_TYPES,
  type OutreachTaskStatus,
  type OutreachTaskType,
} from '../../../domain/outreach/outreach-task';
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

export class DoNotContactPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "An entry of the user's do-not-contact list" })
  @IsUUID(undefined, { message: 'entryId must be a UUID' })
  entryId!: string;
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

  @ApiProperty({ type: DailyLimitsDto })
  dailyLimits!: DailyLimitsDto;

  @ApiProperty({ type: WeeklyLimitsDto, description: 'Per rolling week (the UTC day and the 6 before it); null: none of its own' })
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
      dailyLimits: { ...campaign.dailyLimits },
      weeklyLimits: { ...campaign.weeklyLimits },
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

export class CampaignPageDto {
  @ApiProperty({ type: [CampaignResponseDto], description: 'Newest first' })
  items!: CampaignResponseDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}

export class TaskCountsDto {
  @ApiProperty() Pending!: number;
  @ApiProperty() InProgress!: number;
  @ApiProperty({ description: 'Held as drafts for review' }) AwaitingReview!: number;
  @ApiProperty() Completed!: number;
  @ApiProperty() Failed!: number;
  @ApiProperty() Cancelled!: number;
}

export class WeekUseDto {
  @ApiProperty({ description: 'Slots taken in the rolling week: today and the 6 days before' })
  used!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'The weekly limit; null: none in this scope' })
  limit!: number | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'At the limit: the UTC midnight when the next slot frees (its oldest counted day leaves the week); null while there is room',
  })
  freesAt!: string | null;
}

export class QuotaUseDto {
  @ApiProperty({ description: 'Slots taken today (an action that may have happened keeps its slot)' })
  used!: number;

  @ApiProperty()
  limit!: number;

  @ApiProperty({ type: WeekUseDto, description: "The rolling week's use against the weekly limit" })
  week!: WeekUseDto;
}

export class KindUsageDto {
  @ApiProperty({ type: QuotaUseDto, description: "This campaign's use against its own limit" })
  campaign!: QuotaUseDto;

  @ApiProperty({ type: QuotaUseDto, description: "The owner's use across all campaigns against the owner's limit" })
  owner!: QuotaUseDto;

  @ApiProperty({ description: 'What the campaign may still do today: the smallest room of any limit, daily or weekly, in either scope' })
  remaining!: number;
}

export class KindsUsageDto {
  @ApiProperty({ type: KindUsageDto }) profile_lookup!: KindUsageDto;
  @ApiProperty({ type: KindUsageDto }) linkedin_message!: KindUsageDto;
  @ApiProperty({ type: KindUsageDto }) email!: KindUsageDto;
}

export class CampaignUsageDto {
  @ApiProperty({ format: 'date', example: '2026-11-22', description: 'The UTC day counted' })
  day!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'The next UTC midnight' })
  resetsAt!: string;

  @ApiProperty({ format: 'date', example: '2026-11-16', description: 'The first UTC day the rolling week counts (6 days before day)' })
  weekFrom!: string;

  @ApiProperty({ type: KindsUsageDto })
  kinds!: KindsUsageDto;
}

export class CampaignDetailsResponseDto extends CampaignResponseDto {
  @ApiProperty({ description: 'Leads imported' })
  leads!: number;

  @ApiProperty({ type: TaskCountsDto, description: 'Tasks by status' })
  tasks!: TaskCountsDto;

  @ApiProperty({ type: CampaignUsageDto, description: "Today's and the rolling week's quota use, and what remains" })
  usage!: CampaignUsageDto;

  static ofDetails(details: CampaignDetails): CampaignDetailsResponseDto {
    const { counts, usage } = details;
    return {
      ...CampaignResponseDto.of(details.campaign),
      leads: counts.leads,
      tasks: { ...counts.tasks },
      usage: { day: usage.day, resetsAt: usage.resetsAt.toISOString(), weekFrom: usage.weekFrom, kinds: kindsUsageOf(usage.kinds) },
    };
  }
}

function kindsUsageOf(kinds: CampaignDetails['usage']['kinds']): KindsUsageDto {
  const scope = (use: ScopeUsage): QuotaUseDto => ({
    used: use.used,
    limit: use.limit,
    week: { used: use.week.used, limit: use.week.limit, freesAt: use.week.freesAt?.toISOString() ?? null },
  });
  const kind = (usage: KindUsage): KindUsageDto => ({
    campaign: scope(usage.campaign),
    owner: scope(usage.owner),
    remaining: usage.remaining,
  });
  return { profile_lookup: kind(kinds.profile_lookup), linkedin_message: kind(kinds.linkedin_message), email: kind(kinds.email) };
}

/**
 * Checked by the import use case, which names the lead that is wrong (`leads[3]: …`);
 * `@Allow` only admits the fields, so that any other is refused by name.
 */
export class LeadInputDto {
  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: LEAD_NAME_MAX_LENGTH })
  @Allow()
  name!: string;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/', description: 'https://www.linkedin.com/in/<name>/' })
  @Allow()
  linkedinUrl!: string;

  @ApiPropertyOptional({ type: String, format: 'email', nullable: true, example: 'ada@example.com' })
  @Allow()
  email?: string | null;
}

export class ImportLeadsRequestDto {
  @ApiProperty({ type: [LeadInputDto], minItems: 1, maxItems: LEAD_IMPORT_MAX })
  @ValidateNested({ each: true })
  @Type(() => LeadInputDto)
  @ArrayMaxSize(LEAD_IMPORT_MAX)
  @ArrayMinSize(1)
  @IsArray()
  leads!: LeadInputDto[];
}

export class LeadDuplicateDto {
  @ApiProperty({ type: Number, nullable: true, description: 'The CSV line; null for JSON' })
  line!: number | null;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/', description: 'Canonical form' })
  linkedinUrl!: string;
}

export class LeadRowErrorDto {
  @ApiProperty({ example: 7, description: 'The CSV line where the row starts, counting the header as line 1' })
  line!: number;

  @ApiProperty({ type: String, nullable: true, example: 'linkedinUrl', description: 'null when the whole row or file is wrong' })
  field!: string | null;

  @ApiProperty({ example: 'linkedinUrl must look like https://www.linkedin.com/in/<name>/' })
  message!: string;
}

export class LeadImportReportDto {
  @ApiProperty({ description: 'Leads added, each with its tasks' })
  imported!: number;

  @ApiProperty({ type: [LeadDuplicateDto], description: 'Profiles the campaign already had (or the request repeated): skipped' })
  duplicates!: LeadDuplicateDto[];

  @ApiProperty({ type: [LeadRowErrorDto], description: 'CSV rows not imported; always empty for JSON' })
  errors!: LeadRowErrorDto[];

  static of(report: LeadImportReport): LeadImportReportDto {
    return {
      imported: report.imported,
      duplicates: report.duplicates.map((duplicate) => ({ ...duplicate })),
      errors: report.errors.map((error) => ({ ...error })),
    };
  }
}

export class SentMessageDto {
  @ApiProperty({ enum: MESSAGE_CHANNELS, description: 'linkedin for a SendLinkedInMessage task, email for a SendEmail task' })
  channel!: MessageChannel;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/', description: 'The LinkedIn profile URL, or the email address' })
  recipient!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Quick question', description: "The email's subject; null for LinkedIn" })
  subject!: string | null;

  @ApiProperty({ description: "The LinkedIn message, or the email's body, exactly as the channel was given it" })
  text!: string;
}

export class CampaignTaskDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  leadId!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  leadName!: string;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/' })
  leadLinkedinUrl!: string;

  @ApiProperty({ enum: TASK_TYPES })
  type!: OutreachTaskType;

  @ApiProperty({ example: 1, description: "Order among the lead's tasks: look-up, message, email" })
  step!: number;

  @ApiProperty({ enum: TASK_STATUSES })
  status!: OutreachTaskStatus;

  @ApiProperty({ description: 'Cycles that claimed it' })
  attempts!: number;

  @ApiProperty({ type: String, format: 'date-time', description: 'When it is due' })
  nextRunAt!: string;

  @ApiProperty({ type: Object, nullable: true, description: 'What the last action produced, or why it failed' })
  output!: Record<string, unknown> | null;

  @ApiProperty({
    type: SentMessageDto,
    nullable: true,
    description:
      'For a SendLinkedInMessage or SendEmail task whose action went to the channel (Completed, or Failed with ' +
      'VERIFICATION_FAILED or UNKNOWN_OUTCOME, when it may have gone out): what was sent. Null otherwise',
  })
  sent!: SentMessageDto | null;

  @ApiProperty({ type: String, nullable: true, example: 'SESSION_EXPIRED' })
  lastError!: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt!: string | null;

  static of(task: TaskView): CampaignTaskDto {
    return {
      id: task.id,
      leadId: task.leadId,
      leadName: task.leadName,
      leadLinkedinUrl: task.leadLinkedinUrl,
      type: task.type,
      step: task.step,
      status: task.status,
      attempts: task.attempts,
      nextRunAt: task.nextRunAt.toISOString(),
      output: task.output === null ? null : { ...task.output },
      sent: task.sent && { ...task.sent },
      lastError: task.lastError,
      createdAt: task.createdAt.toISOString(),
      completedAt: task.completedAt?.toISOString() ?? null,
    };
  }
}

export class CampaignTaskPageDto {
  @ApiProperty({ type: [CampaignTaskDto], description: 'Leads in import order, then step' })
  items!: CampaignTaskDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}

export class DoNotContactRequestDto {
  @ApiProperty({
    example: 'ada@example.com',
    description: 'An email address or a https://www.linkedin.com/in/<name>/ profile URL',
    maxLength: 254,
  })
  @MaxLength(254)
  @IsString()
  value!: string;
}

export class DoNotContactEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: DO_NOT_CONTACT_KINDS })
  kind!: DoNotContactKind;

  @ApiProperty({ example: 'ada@example.com', description: 'Canonical form: lower-case email, https://www.linkedin.com/in/<name>/' })
  value!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  static of(entry: DoNotContactEntry): DoNotContactEntryDto {
    return { id: entry.id, kind: entry.kind, value: entry.value, createdAt: entry.createdAt.toISOString() };
  }
}
