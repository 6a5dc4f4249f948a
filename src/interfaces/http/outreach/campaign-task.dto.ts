import { ApiProperty } from '@nestjs/swagger';
import type { TaskView } from '../../../application/outreach/ports/campaign-repository.port';
import { MESSAGE_CHANNELS, type MessageChannel } from '../../../domain/outreach/actions';
import { TASK_STATUSES, type OutreachTaskStatus, type OutreachTaskType } from '../../../domain/outreach/outreach-task';

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

  @ApiProperty({
    type: String,
    example: 'SendEmail',
    description: 'ScrapeProfile, SendLinkedInMessage, SendEmail, or the task type of an action a channel added (e.g. SendSms)',
  })
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
