import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  AUDIT_ROW_PLACES,
  AUDIT_SOURCES,
  type AuditRowPlace,
  RECORDED_AUDIT_STATUSES,
  type RecordedAuditStatus,
  type AuditRecord,
  type AuditSource,
  type ChainVerification,
} from '../../../application/audit/ports/audit-reader.port';
import { POLICY_EFFECTS, type PolicyEffect } from '../../../domain/policy/policy';
import type { ChainVerificationReport } from '../../../application/audit/verify-audit-chain.use-case';

export class AuditPolicyVerdictDto {
  @ApiProperty({ type: Number, example: 3, description: 'The policy version in force; 0 is the built-in policy' })
  version!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'delete-cap',
    description: 'The rule that decided; null when no rule matched (allowed)',
  })
  rule!: string | null;

  @ApiProperty({ enum: POLICY_EFFECTS, example: 'ask-person', description: 'What it decided; `limit` when a limit stopped the call' })
  effect!: PolicyEffect;

  @ApiPropertyOptional({
    type: Number,
    example: 6,
    description:
      'How many things the call touched as the policy read it (the tasks it resolved to, a scope included); absent on rows ' +
      'written before it was recorded',
  })
  items?: number;
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
    type: AuditPolicyVerdictDto,
    nullable: true,
    description:
      'What the policy in force said of the call (docs/policies.md); part of the hashed row when set. Null on rows that are no ' +
      "tool call's, and on rows written before policies were recorded",
  })
  policy!: AuditPolicyVerdictDto | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'sha256(prevHash ‖ canonical row), hex; null until the sealer has linked the row into the chain (normally within a second)',
  })
  hash!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The previous link's hash (64 zeros for the first); null until sealed" })
  prevHash!: string | null;

  @ApiProperty({
    enum: AUDIT_ROW_PLACES,
    description:
      'linked: in the chain. queued: waiting for the sealer (normally under a second). outside: not a row of the log: numbered ' +
      "below 1, sharing its number with another row, linked twice, or neither linked nor queued; only the tables' owner, " +
      'going around the triggers, can make one, and verify fails on it',
  })
  chain!: AuditRowPlace;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'Who erased the personal fields of the row (arguments, result and errorMessage are then empty), the account that erased ' +
      'or the erased person; the erasure is an erasure.* row of its own. Null while they are there. Not part of the hashed row: ' +
      'its commitment to the erased fields stands',
  })
  erasedBy!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When they were erased; null while they are there' })
  erasedAt!: string | null;

  static of(row: AuditRecord): AuditRowDto {
    return {
      ...row,
      createdAt: row.createdAt.toISOString(),
      securityEvents: [...row.securityEvents],
      erasedAt: row.erasedAt?.toISOString() ?? null,
    };
  }
}

export class AuditRowPageDto {
  @ApiProperty({ type: [AuditRowDto], description: 'Newest first' })
  items!: AuditRowDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the older rows' })
  nextCursor!: string | null;
}

export class ChainVerificationDto implements ChainVerification {
  @ApiProperty({
    description:
      'Every link follows the one before it and hashes to its row, and every row is accounted for: numbered from 1, the only ' +
      'row of its number, and linked once or queued once',
  })
  verified!: boolean;

  @ApiProperty()
  checkedRows!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The first row that does not hold (altered, after a deleted one, or outside the log: it may be 0 or below)',
  })
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

  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'full=true only: the first erased row (seq) that no erasure accounts for: emptied and stamped by someone who can write the ' +
      'table, not by an erasure (no later succeeded erasure.* row by erasedBy whose result.erasedAt is its erasedAt, or more ' +
      'rows so stamped than the erasure counted). Null when every erased row is accounted for, and without full',
  })
  firstUnexplainedErasure!: number | null;

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
      firstUnexplainedErasure: report.firstUnexplainedErasure,
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
