import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import type { CycleOutcome } from '../../../application/outreach/cycle-outcome';
import { ACTION_NAMES } from '../../../domain/outreach/actions';
import { TASK_STATUSES } from '../../../domain/outreach/outreach-task';
import { UserPathDto } from '../todo/task.dto';

export class CampaignCyclePathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "One of the user's campaigns" })
  @IsUUID()
  campaignId!: string;
}

export class CycleTaskDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    type: String,
    example: 'SendEmail',
    description: 'ScrapeProfile, SendLinkedInMessage, SendEmail, or the task type of an action a channel added (e.g. SendSms)',
  })
  type!: string;
  @ApiProperty() leadName!: string;
  @ApiProperty({ enum: TASK_STATUSES, description: 'After the cycle' }) status!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a Pending task is due again' })
  nextRunAt!: Date | null;
}

export class CycleProposalDto {
  @ApiProperty({ enum: ACTION_NAMES }) action!: string;
  @ApiProperty({ type: Object }) args!: Record<string, unknown>;
  @ApiProperty() reason!: string;
  @ApiProperty({ enum: ['model', 'controller'], description: "'controller' when it decided without the model (quota)" })
  by!: string;
}

export class CycleValidationDto {
  @ApiProperty() accepted!: boolean;
  @ApiProperty({ description: 'Answers asked for (one re-ask at most)' }) attempts!: number;
  @ApiProperty({ type: [String], description: 'Why refused answers were refused' }) problems!: string[];
}

export class CycleExecutionDto {
  @ApiProperty({ enum: ['succeeded', 'failed', 'unknown'] }) status!: string;
  @ApiProperty({ type: String, nullable: true }) idempotencyKey!: string | null;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ type: String, nullable: true }) errorCode!: string | null;
  @ApiPropertyOptional({ type: Object, nullable: true }) result?: unknown;
}

export class CycleVerificationDto {
  @ApiProperty() verified!: boolean;
  @ApiProperty() detail!: string;
}

export class CycleReviewDto {
  @ApiProperty({ format: 'uuid', description: 'The draft: GET /api/{userId}/outreach/drafts, then approve or reject it' })
  draftId!: string;
  @ApiProperty({ example: 'a3f1…', description: 'sha256 of the canonical arguments; name it to approve or reject' })
  argumentsHash!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt!: string;
}

export class CycleOutcomeDto {
  @ApiProperty({
    enum: ['idle', 'completed', 'deferred', 'failed', 'unknown', 'awaiting_review', 'campaign_completed'],
    description: 'awaiting_review: the action is held as a draft for its owner (review before send); nothing was sent',
  })
  status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'QUOTA_EXCEEDED' }) code!: string | null;
  @ApiProperty() message!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) decisionId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) campaignId!: string | null;
  @ApiProperty({ type: CycleTaskDto, nullable: true }) task!: CycleTaskDto | null;
  @ApiProperty({ type: CycleProposalDto, nullable: true }) proposal!: CycleProposalDto | null;
  @ApiProperty({ type: CycleValidationDto, nullable: true }) validation!: CycleValidationDto | null;
  @ApiProperty({ type: CycleExecutionDto, nullable: true }) execution!: CycleExecutionDto | null;
  @ApiProperty({ type: CycleVerificationDto, nullable: true }) verification!: CycleVerificationDto | null;
  @ApiProperty({ type: CycleReviewDto, nullable: true }) review!: CycleReviewDto | null;

  static of(outcome: CycleOutcome): CycleOutcomeDto {
    return {
      ...outcome,
      task: outcome.task && { ...outcome.task },
      proposal: outcome.proposal && { ...outcome.proposal, args: { ...outcome.proposal.args } },
      validation: outcome.validation && { ...outcome.validation, problems: [...outcome.validation.problems] },
      review: outcome.review && { ...outcome.review, expiresAt: outcome.review.expiresAt.toISOString() },
    };
  }
}
