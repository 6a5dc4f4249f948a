import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';
import type { StoredDraft } from '../../../application/outreach/ports/outreach-draft-store.port';
import { isBuiltIn, MESSAGE_MAX_LENGTH, sentMessageOf } from '../../../domain/outreach/actions';
import { type OutreachTaskType } from '../../../domain/outreach/outreach-task';
import { DRAFT_STATUSES, type DraftProposal, type DraftStatus } from '../../../domain/outreach/review';
import { Optional } from '../shared/fields';
import { PageQueryDto } from '../shared/page-query.dto';
import { UserPathDto } from '../todo/task.dto';

const CHANNEL_ACTIONS = ['linkedin_scrape_profile', 'linkedin_send_message', 'send_email'] as const;
const HASH_MESSAGE = 'argumentsHash must be the 64 lower-case hex digits of the draft’s argumentsHash';

export class DraftPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "One of the user's drafts" })
  @IsUUID(undefined, { message: 'draftId must be a UUID' })
  draftId!: string;
}

export class DraftListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DRAFT_STATUSES, description: 'Only drafts in this status (awaiting_review: the review queue)' })
  @Optional()
  @IsIn(DRAFT_STATUSES, { message: `status must be one of ${DRAFT_STATUSES.join(', ')}` })
  status?: DraftStatus;
}

export class DraftEditsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: MESSAGE_MAX_LENGTH, description: 'A LinkedIn message: the new text' })
  @Optional()
  @MaxLength(MESSAGE_MAX_LENGTH, { message: `edits.message must be at most ${MESSAGE_MAX_LENGTH} characters` })
  @MinLength(1, { message: 'edits.message must not be empty' })
  @IsString({ message: 'edits.message must be a string' })
  message?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'An email: the new subject' })
  @Optional()
  @MaxLength(200, { message: 'edits.subject must be at most 200 characters' })
  @MinLength(1, { message: 'edits.subject must not be empty' })
  @IsString({ message: 'edits.subject must be a string' })
  subject?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 10_000, description: 'An email: the new body' })
  @Optional()
  @MaxLength(10_000, { message: 'edits.body must be at most 10000 characters' })
  @MinLength(1, { message: 'edits.body must not be empty' })
  @IsString({ message: 'edits.body must be a string' })
  body?: string;
}

export class RejectDraftRequestDto {
  @ApiProperty({
    example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    description: 'The draft’s argumentsHash, as read',
  })
  @Matches(/^[0-9a-f]{64}$/, { message: HASH_MESSAGE })
  @IsString({ message: HASH_MESSAGE })
  argumentsHash!: string;
}

export class ApproveDraftRequestDto extends RejectDraftRequestDto {
  @ApiPropertyOptional({
    type: DraftEditsDto,
    description:
      'Changes before approval: message for a LinkedIn message; subject and body for an email. The recipient never changes. ' +
      'The edited draft is checked by the same rules as a model’s proposal and gets a new argumentsHash.',
  })
  @Optional()
  @ValidateNested()
  @Type(() => DraftEditsDto)
  @IsObject({ message: 'edits must be an object' })
  edits?: DraftEditsDto;
}

export class DraftRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class DraftTaskDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    type: String,
    example: 'SendEmail',
    description: 'ScrapeProfile, SendLinkedInMessage, SendEmail, or the task type of an action a channel added (e.g. SendSms)',
  })
  type!: OutreachTaskType;
}

export class DraftResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({
    enum: DRAFT_STATUSES,
    description:
      'awaiting_review → approved (runs at the task’s next cycle) → sent; awaiting_review → rejected by its reviewer (slot ' +
      'given back, task Cancelled, REJECTED_BY_REVIEWER) or expired, nobody having decided it in time (slot given back; the ' +
      'task drafts again, or is Cancelled with REVIEW_EXPIRED when a policy rule’s fallback says so)',
  })
  status!: DraftStatus;

  @ApiProperty({ type: DraftRefDto }) campaign!: DraftRefDto;
  @ApiProperty({ type: DraftRefDto }) lead!: DraftRefDto;
  @ApiProperty({ type: DraftTaskDto }) task!: DraftTaskDto;

  @ApiProperty({ enum: CHANNEL_ACTIONS })
  action!: string;

  @ApiProperty({ type: Object, description: 'The exact arguments that run once approved; argumentsHash covers them' })
  args!: Record<string, unknown>;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/', description: 'The LinkedIn profile URL, or the email address' })
  recipient!: string;

  @ApiProperty({ type: String, nullable: true, description: "The email's subject; null for LinkedIn" })
  subject!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The LinkedIn message or the email's body; null for a profile look-up" })
  text!: string | null;

  @ApiProperty({ description: 'Why the planner chose it' })
  reason!: string;

  @ApiProperty({ example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', description: 'sha256 of the canonical args' })
  argumentsHash!: string;

  @ApiProperty({ description: 'Whether a reviewer changed it before approving' })
  edited!: boolean;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Who approved or rejected it' })
  reviewerId!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  reviewedAt!: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description:
      'Undecided by then, it expires (status expired: nobody decided it in time, which is no refusal): its slot is given back, ' +
      'the task drafts again (lastError DRAFT_EXPIRED) or, held by a policy rule whose fallback is reject, is Cancelled with ' +
      'REVIEW_EXPIRED; a rule whose fallback is escalate first hands it to the admins for as long again',
  })
  expiresAt!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'When a policy rule with fallback escalate handed it to the admins, its owner having not decided it in time: from then ' +
      'on an admin may decide it too, until expiresAt; null when it was never escalated',
  })
  escalatedAt!: string | null;

  static of(draft: StoredDraft): DraftResponseDto {
    const { proposal } = draft;
    const message = sentMessageOf(proposal);
    return {
      id: draft.id,
      status: draft.status,
      campaign: { id: draft.campaignId, name: draft.campaignName },
      lead: { id: draft.leadId, name: draft.leadName },
      task: { id: draft.taskId, type: draft.taskType },
      action: proposal.action,
      args: { ...proposal.args },
      recipient: message?.recipient ?? recipientOf(proposal),
      subject: message?.subject ?? null,
      text: message?.text ?? null,
      reason: proposal.reason,
      argumentsHash: draft.argumentsHash,
      edited: draft.edited,
      reviewerId: draft.reviewerId,
      reviewedAt: draft.reviewedAt?.toISOString() ?? null,
      createdAt: draft.createdAt.toISOString(),
      expiresAt: draft.expiresAt.toISOString(),
      escalatedAt: draft.escalatedAt?.toISOString() ?? null,
    };
  }
}

export class DraftPageDto {
  @ApiProperty({ type: [DraftResponseDto], description: 'Newest first' })
  items!: DraftResponseDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}

/** Whom a draft's action reaches when it sends no message: its target (for an action a channel added, its `to`, else its name). */
function recipientOf(proposal: DraftProposal): string {
  if (isBuiltIn(proposal)) return proposal.action === 'send_email' ? proposal.args.to : proposal.args.profileUrl;
  return typeof proposal.args.to === 'string' ? proposal.args.to : proposal.action;
}
