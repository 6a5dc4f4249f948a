import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, ValidateNested } from 'class-validator';
import type { ListedNotification } from '../../../application/notifications/ports/notification-feed.port';
import type { PreferencesView } from '../../../application/notifications/notification-preferences.use-case';
import {
  consoleLink,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type NotificationFacts,
  type NotificationSubject,
} from '../../../domain/notifications/notification';
import { Optional } from '../shared/fields';

const EVENTS_DESCRIPTION =
  'draft.awaiting_review: a draft waits for your review; draft.escalated: a draft went to the admins (its owner did not decide ' +
  'in time); draft.expired: nobody decided a draft in time; confirmation.waiting: a question an MCP client could not ask you ' +
  'waits in the console; campaign.paused / campaign.finished: a campaign stopped working its leads; policy.stored: a new ' +
  'policy version (admins only); budget.threshold: your spending passed a threshold of your budget';

export type EmailChoices = { [E in NotificationEvent]?: boolean };

/**
 * One optional boolean per event, each field made from NOTIFICATION_EVENTS (a new event is a
 * new field): a field named after an event this server does not know is refused, naming it.
 */
function emailChoicesClass(): new () => EmailChoices {
  class EmailChoicesDto {}
  for (const event of NOTIFICATION_EVENTS) {
    applyDecorators(
      ApiPropertyOptional({ type: Boolean, description: `${event}: true to get it by email, false not to` }),
      Optional(),
      IsBoolean({ message: `email.${event} must be true or false` }),
    )(EmailChoicesDto.prototype, event);
  }
  return EmailChoicesDto;
}
export const EmailChoicesDto = emailChoicesClass();

export class UpdateNotificationPreferencesRequestDto {
  @ApiProperty({
    type: EmailChoicesDto,
    description: `Events to get by email (true) or not (false); events not named keep their choice. ${EVENTS_DESCRIPTION}`,
  })
  @ValidateNested()
  @Type(() => EmailChoicesDto)
  @IsObject({ message: 'email must be an object of events, each true or false' })
  email!: EmailChoices;
}

export class NotificationPreferencesResponseDto {
  @ApiProperty({
    type: EmailChoicesDto,
    description: `Every event that can reach you, and whether it does by email (every one on until you turn it off). ${EVENTS_DESCRIPTION}`,
  })
  email!: EmailChoices;

  @ApiProperty({
    description: 'Whether this server sends email at all (its SMTP_URL is set); when false, nothing is mailed whatever you choose',
  })
  emailDelivered!: boolean;

  static of(view: PreferencesView): NotificationPreferencesResponseDto {
    return { email: { ...view.email }, emailDelivered: view.emailDelivered };
  }
}

export class NotificationResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: NOTIFICATION_EVENTS, description: EVENTS_DESCRIPTION })
  event!: NotificationEvent;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'What it is about: {kind: draft, id}, {kind: confirmation, id, conversationId}, {kind: campaign, id}, {kind: policy, version}, {kind: budget, month}',
  })
  subject!: NotificationSubject;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Short values (strings, numbers, booleans, null) the server read from what it stored when it happened, never a model’s words',
  })
  facts!: NotificationFacts;

  @ApiProperty({
    example: '#review?draft=6f1c…',
    description: "The console's page of its subject, a hash route (append it to the console's address)",
  })
  link!: string;

  @ApiProperty({ description: 'Written for every admin, rather than for you alone' })
  toAdmins!: boolean;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  static of(notification: ListedNotification): NotificationResponseDto {
    return {
      id: notification.id,
      event: notification.event,
      subject: notification.subject,
      facts: notification.facts,
      link: consoleLink(notification.subject),
      toAdmins: notification.toAdmins,
      createdAt: notification.createdAt.toISOString(),
    };
  }
}

export class NotificationPageDto {
  @ApiProperty({ type: [NotificationResponseDto], description: 'Newest first' })
  items!: NotificationResponseDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last one' })
  nextCursor!: string | null;
}
