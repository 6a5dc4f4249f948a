import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ToolAuditStatus } from '../../../application/audit/ports/audit-log.port';
import {
  AUDIT_SOURCES,
  AUDIT_STATUSES,
  type AuditFilter,
  type AuditSource,
  DECISION_STATUSES,
  type DecisionFilter,
  type DecisionStatus,
} from '../../../application/audit/ports/audit-reader.port';
import { EMAIL_MAX_LENGTH } from '../../../domain/identity/user';
import { PageQueryDto } from '../shared/page-query.dto';
import { Optional, ToInteger } from '../shared/fields';

const ISO_TIME = { strict: true, strictSeparator: true } as const;
const TIME_DESCRIPTION = 'ISO 8601, e.g. 2025-11-24T09:00:00Z; compared with the row creation time';

/** The filters that audit rows and decisions share. */
class CommonFilterQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The user the call or decision was made for' })
  @Optional()
  @IsUUID(undefined, { message: 'actorId must be a UUID' })
  actorId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only those of this chat conversation' })
  @Optional()
  @IsUUID(undefined, { message: 'conversationId must be a UUID' })
  conversationId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only those of this outreach campaign' })
  @Optional()
  @IsUUID(undefined, { message: 'campaignId must be a UUID' })
  campaignId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only those of this decision (a chat turn or an outreach cycle)' })
  @Optional()
  @IsUUID(undefined, { message: 'decisionId must be a UUID' })
  decisionId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: `Inclusive. ${TIME_DESCRIPTION}` })
  @Optional()
  @IsISO8601(ISO_TIME, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: `Exclusive. ${TIME_DESCRIPTION}` })
  @Optional()
  @IsISO8601(ISO_TIME, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

export class AuditFilterQueryDto extends CommonFilterQueryDto {
  @ApiPropertyOptional({
    format: 'email',
    maxLength: EMAIL_MAX_LENGTH,
    description: "The actor account's email as it is now, in any case (the rows of a deleted account have none)",
  })
  @Optional()
  // Loose, as the accounts' own check is, but never U+FFFD: a query that was not valid UTF-8 decodes to it.
  @Matches(/^\s*[^\s@\uFFFD]+@[^\s@\uFFFD]+\s*$/, { message: 'actorEmail must be an email address' })
  @MaxLength(EMAIL_MAX_LENGTH, { message: `actorEmail must be at most ${EMAIL_MAX_LENGTH} characters` })
  @IsString()
  actorEmail?: string;

  @ApiPropertyOptional({ enum: AUDIT_SOURCES, description: 'Where the call came from' })
  @Optional()
  @IsIn(AUDIT_SOURCES)
  source?: AuditSource;

  @ApiPropertyOptional({ example: 'add_task', description: 'A tool name, or admin.audit_logs.list and the like for admin reads' })
  @Optional()
  @Matches(/^[\w.:-]+$/, { message: 'tool must be a tool name (letters, digits, _ . : -)' })
  @MaxLength(64)
  @IsString()
  tool?: string;

  @ApiPropertyOptional({ enum: AUDIT_STATUSES, description: "The call's outcome" })
  @Optional()
  @IsIn(AUDIT_STATUSES)
  status?: ToolAuditStatus;
}

export class AuditPageQueryDto extends IntersectionType(AuditFilterQueryDto, PageQueryDto) {}

export class DecisionPageQueryDto extends IntersectionType(CommonFilterQueryDto, PageQueryDto) {
  @ApiPropertyOptional({ enum: DECISION_STATUSES, description: "A chat turn's or an outreach cycle's status" })
  @Optional()
  @IsIn(DECISION_STATUSES)
  status?: DecisionStatus;
}

export class AuditSeqPathDto {
  @ApiProperty({ description: 'The row sequence number', minimum: 1, example: 42 })
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER)
  @Min(1)
  @IsInt({ message: 'seq must be a whole number' })
  seq!: number;
}

export class DecisionPathDto {
  @ApiProperty({ format: 'uuid', description: 'The decision id a chat turn or an outreach cycle answered' })
  @IsUUID(undefined, { message: 'id must be a UUID' })
  id!: string;
}

export class VerifyQueryDto {
  @Optional()
  @IsIn(['true', 'false'], { message: 'full must be true or false' })
  full?: 'true' | 'false';
}

export function toAuditFilter(query: AuditFilterQueryDto): AuditFilter {
  return {
    ...commonFilter(query),
    actorEmail: query.actorEmail?.trim() || undefined,
    source: query.source,
    tool: query.tool,
    status: query.status,
  };
}

export function toDecisionFilter(query: DecisionPageQueryDto): DecisionFilter {
  return { ...commonFilter(query), status: query.status };
}

function commonFilter(query: CommonFilterQueryDto): AuditFilter & DecisionFilter {
  return {
    actorId: query.actorId,
    conversationId: query.conversationId,
    campaignId: query.campaignId,
    decisionId: query.decisionId,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}
