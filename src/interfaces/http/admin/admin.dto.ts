import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ToolAuditStatus } from '../../../application/agent/ports/audit-log.port';
import {
  AUDIT_SOURCES,
  AUDIT_STATUSES,
  RECORDED_AUDIT_STATUSES,
  type RecordedAuditStatus,
  type AuditFilter,
  type AuditRecord,
  type AuditSource,
  type ChainVerification,
  DECISION_STATUSES,
  type DecisionFilter,
  type DecisionRecord,
  type DecisionStatus,
  type DecisionWithToolCalls,
} from '../../../application/audit/ports/audit-reader.port';
import type { ChainVerificationReport } from '../../../application/audit/verify-audit-chain.use-case';
import { INTENT_TYPES, type IntentType, OUTCOME_CATEGORIES, type OutcomeCategory } from '../../../domain/agent/turn-outcome';
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

export class AuditRowDto {
  @ApiProperty({ example: 42, description: 'Increases in chain order; pages are cut by it' })
  seq!: number;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ enum: AUDIT_SOURCES })
  source!: AuditSource;

  @ApiProperty({ format: 'uuid', description: 'The user the call was made for (for admin reads, the admin)' })
  actorId!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ada@example.com',
    description: "The actor account's email as it is now (not part of the hashed row); null when the account no longer exists",
  })
  actorEmail!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  conversationId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  campaignId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  outreachTaskId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The chat turn or outreach cycle it belongs to' })
  decisionId!: string | null;

  @ApiProperty({ example: 'add_task' })
  tool!: string;

  @ApiProperty({
    description: 'As called, secrets masked; the raw text when it was not JSON',
    oneOf: [{ type: 'object' }, { type: 'string' }],
  })
  arguments!: unknown;

  @ApiProperty({
    enum: RECORDED_AUDIT_STATUSES,
    description: 'confirmation_requested is the old name of confirmation_required, kept by rows written before the names were one',
  })
  status!: RecordedAuditStatus;

  @ApiProperty({ type: Object, nullable: true, description: 'What the tool answered, secrets masked' })
  result!: unknown;

  @ApiProperty({ type: String, nullable: true, example: 'TASK_NOT_FOUND' })
  errorCode!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: "I couldn't find task 999 in your list. Say 'show my tasks' to see their numbers.",
    description:
      "A failed or refused tool call's error as the person is told it (the error taxonomy's sentence for its code), secrets " +
      'masked; part of the hashed row when set. Null otherwise, and on rows written before it was recorded',
  })
  errorMessage!: string | null;

  @ApiProperty({ type: Number, nullable: true })
  durationMs!: number | null;

  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'e.g. a model-supplied user id that was discarded' })
  securityEvents!: unknown[];

  @ApiProperty({ type: Number, nullable: true, description: 'For an outcome row, the seq of its pending row' })
  pendingSeq!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'sha256(prevHash ‖ canonical row), hex; null until the sealer has linked the row into the chain (normally within a second)',
  })
  hash!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The previous link's hash (64 zeros for the first); null until sealed" })
  prevHash!: string | null;

  static of(row: AuditRecord): AuditRowDto {
    return { ...row, createdAt: row.createdAt.toISOString(), securityEvents: [...row.securityEvents] };
  }
}

export class AuditRowPageDto {
  @ApiProperty({ type: [AuditRowDto], description: 'Newest first' })
  items!: AuditRowDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the older rows' })
  nextCursor!: string | null;
}

export class DecisionLogDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'uuid', description: 'The user the turn or cycle ran for' })
  actorId!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ada@example.com',
    description: "That user's email as it is now; null when the account no longer exists",
  })
  actorEmail!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Set for a chat turn' })
  conversationId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Set for an outreach cycle' })
  campaignId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  outreachTaskId!: string | null;

  @ApiProperty({ example: 'INVOKE_TOOL', description: "A chat turn's decision type, or the cycle's action or code" })
  decisionType!: string;

  @ApiProperty({ example: 'completed' })
  status!: string;

  @ApiProperty({ description: 'Model calls made' })
  iterations!: number;

  @ApiProperty({ example: 'offline' })
  provider!: string;

  @ApiProperty()
  model!: string;

  @ApiProperty()
  promptTokens!: number;

  @ApiProperty()
  completionTokens!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Null when no prices are configured' })
  cost!: number | null;

  @ApiProperty()
  durationMs!: number;

  @ApiProperty({ type: String, nullable: true })
  failureClass!: string | null;

  @ApiProperty({ type: String, nullable: true })
  providerRequestId!: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "A chat turn's: the person's message it answered (the id of that message in the conversation's messages)",
  })
  messageId!: string | null;

  @ApiProperty({
    enum: INTENT_TYPES,
    nullable: true,
    description:
      "A chat turn's: what the person wanted, as its tool calls show it (NONE: no tool; BULK: a bulk change or changes of " +
      'several kinds); PENDING while it runs, UNKNOWN when it was cut off. Null for outreach cycles',
  })
  intentType!: IntentType | null;

  @ApiProperty({
    enum: OUTCOME_CATEGORIES,
    nullable: true,
    description:
      "A chat turn's: how it ended for the person (ASKED: a question or a confirmation; REFUSED: a rule declined it); " +
      'PENDING while it runs, INTERRUPTED when it was cut off. Null for outreach cycles',
  })
  outcomeCategory!: OutcomeCategory | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0,
    description: "A finished chat turn's sampling temperature: the server's, or the one the request asked for",
  })
  temperature!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1024,
    description: "A finished chat turn's most tokens per model call: the server's, or the request's own",
  })
  maxTokens!: number | null;

  static of(decision: DecisionRecord): DecisionLogDto {
    return {
      id: decision.id,
      createdAt: decision.createdAt.toISOString(),
      actorId: decision.actorId,
      actorEmail: decision.actorEmail,
      conversationId: decision.conversationId,
      campaignId: decision.campaignId,
      outreachTaskId: decision.outreachTaskId,
      decisionType: decision.decisionType,
      status: decision.status,
      iterations: decision.iterations,
      provider: decision.provider,
      model: decision.model,
      promptTokens: decision.promptTokens,
      completionTokens: decision.completionTokens,
      cost: decision.cost,
      durationMs: decision.durationMs,
      failureClass: decision.failureClass,
      providerRequestId: decision.providerRequestId,
      messageId: decision.messageId,
      intentType: decision.intentType,
      outcomeCategory: decision.outcomeCategory,
      temperature: decision.temperature,
      maxTokens: decision.maxTokens,
    };
  }
}

export class DecisionLogPageDto {
  @ApiProperty({ type: [DecisionLogDto], description: 'Newest first' })
  items!: DecisionLogDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the older decisions' })
  nextCursor!: string | null;
}

export class TurnContextDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The conversation summary the model read' })
  summaryId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The summary's text" })
  summary!: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'First stored message read word for word (its sequence number)' })
  firstSeq!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Last stored message read word for word' })
  lastSeq!: number | null;

  @ApiProperty({ description: 'Stored messages read word for word' })
  messages!: number;

  @ApiProperty({ description: 'Estimated tokens of the instructions, summary and messages' })
  estimatedTokens!: number;
}

export class DecisionLogDetailDto extends DecisionLogDto {
  @ApiProperty({ type: [AuditRowDto], description: 'Its audit rows, in sequence order' })
  toolCalls!: AuditRowDto[];

  @ApiProperty({ type: TurnContextDto, nullable: true, description: 'A chat turn: what the model was told besides the message' })
  context!: TurnContextDto | null;

  static withToolCalls(decision: DecisionWithToolCalls): DecisionLogDetailDto {
    return { ...DecisionLogDto.of(decision), toolCalls: decision.toolCalls.map((row) => AuditRowDto.of(row)), context: decision.context };
  }
}

export class ChainVerificationDto implements ChainVerification {
  @ApiProperty({ description: 'Every link follows the one before it and hashes to its row, and every row is linked or queued to be' })
  verified!: boolean;

  @ApiProperty()
  checkedRows!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'The first row that does not hold (altered, or after a deleted one)' })
  firstBadSeq!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'The last row hash; keep it elsewhere to detect a rewritten tail' })
  headHash!: string | null;

  @ApiProperty({ description: 'Rows appended but not yet linked into the chain when the walk ended (not checked)' })
  unsealedRows!: number;

  @ApiProperty({ description: "The position the walk started at: the newest checkpoint's, or 1 for the whole chain" })
  from!: number;

  @ApiProperty({
    type: () => CheckpointRefDto,
    nullable: true,
    description: 'The checkpoint the walk started at; null for the whole chain',
  })
  checkpoint!: CheckpointRefDto | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The first checkpoint checked that does not hold: not signed by the configured key, or its link gone or changed',
  })
  firstBadCheckpoint!: number | null;

  static of(report: ChainVerificationReport): ChainVerificationDto {
    return {
      verified: report.verified,
      checkedRows: report.checkedRows,
      firstBadSeq: report.firstBadSeq,
      headHash: report.headHash,
      unsealedRows: report.unsealedRows,
      from: report.from,
      checkpoint: report.checkpoint && {
        position: report.checkpoint.position,
        seq: report.checkpoint.seq,
        headHash: report.checkpoint.headHash,
        time: report.checkpoint.createdAt.toISOString(),
      },
      firstBadCheckpoint: report.firstBadCheckpoint,
    };
  }
}

export class CheckpointRefDto {
  @ApiProperty()
  position!: number;

  @ApiProperty({ description: "The checkpoint's row" })
  seq!: number;

  @ApiProperty({ description: 'The link hash at that position, as signed' })
  headHash!: string;

  @ApiProperty({ format: 'date-time' })
  time!: string;
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
