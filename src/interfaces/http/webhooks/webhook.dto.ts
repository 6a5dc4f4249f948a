import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../../../domain/notifications/notification';
import {
  DEFAULT_KEEP_PREVIOUS_HOURS,
  DELIVERY_OUTCOMES,
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_LIMITS,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../../../domain/webhooks/webhook-endpoint';
import { Optional, OptionalOrNull, ToInteger } from '../shared/fields';
import { UserPathDto } from '../todo/task.dto';

const EVENTS_DESCRIPTION =
  `The events it receives, each once: any of ${NOTIFICATION_EVENTS.join(', ')}. ` +
  'Left out (or null): every event, those added later included.';

export class WebhookPathDto {
  @ApiProperty({ format: 'uuid', description: 'A webhook endpoint' })
  @IsUUID(undefined, { message: 'webhookId must be a UUID' })
  webhookId!: string;
}

export class UserWebhookPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: 'One of the user’s webhook endpoints' })
  @IsUUID(undefined, { message: 'webhookId must be a UUID' })
  webhookId!: string;
}

/** The fields a registration and a change share; the URL's own rules are the domain's (webhookUrlProblem). */
class WebhookFieldsDto {
  @ApiPropertyOptional({ type: [String], enum: NOTIFICATION_EVENTS, nullable: true, description: EVENTS_DESCRIPTION })
  @OptionalOrNull()
  @ArrayMaxSize(NOTIFICATION_EVENTS.length, { message: `events must hold at most ${NOTIFICATION_EVENTS.length} items` })
  @MaxLength(60, { each: true, message: 'each event must be at most 60 characters' })
  @IsString({ each: true, message: 'each event must be a string' })
  @IsArray({ message: 'events must be an array of event names, or null for every event' })
  events?: string[] | null;

  @ApiPropertyOptional({ maxLength: WEBHOOK_LIMITS.descriptionLength, description: 'What it is for, one line' })
  @Optional()
  @MaxLength(WEBHOOK_LIMITS.descriptionLength, { message: `description must be at most ${WEBHOOK_LIMITS.descriptionLength} characters` })
  @IsString({ message: 'description must be a string' })
  description?: string;
}

const URL_DESCRIPTION =
  'Where deliveries are POSTed: https (http only to a host in OUTBOUND_PRIVATE_HOSTS), at most 2 000 characters, no user info or ' +
  'fragment, a host name with a dot (not an IP address, not localhost). Where it resolves is checked at every delivery.';

export class CreateWebhookRequestDto extends WebhookFieldsDto {
  @ApiProperty({ example: 'https://hooks.example.com/bridle', maxLength: WEBHOOK_LIMITS.urlLength, description: URL_DESCRIPTION })
  @MaxLength(WEBHOOK_LIMITS.urlLength, { message: `url must be at most ${WEBHOOK_LIMITS.urlLength} characters` })
  @IsString({ message: 'url must be a string' })
  url!: string;
}

export class UpdateWebhookRequestDto extends WebhookFieldsDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_LIMITS.urlLength, description: URL_DESCRIPTION })
  @Optional()
  @MaxLength(WEBHOOK_LIMITS.urlLength, { message: `url must be at most ${WEBHOOK_LIMITS.urlLength} characters` })
  @IsString({ message: 'url must be a string' })
  url?: string;

  @ApiPropertyOptional({ description: 'false stops deliveries; true starts them again where they stopped, the head’s retries afresh' })
  @Optional()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;
}

const ALL_PEOPLE_DESCRIPTION = 'Every person’s events too, not only those addressed to the admins';

export class CreateDeploymentWebhookRequestDto extends CreateWebhookRequestDto {
  @ApiPropertyOptional({ default: false, description: ALL_PEOPLE_DESCRIPTION })
  @Optional()
  @IsBoolean({ message: 'allPeople must be true or false' })
  allPeople?: boolean;
}

export class UpdateDeploymentWebhookRequestDto extends UpdateWebhookRequestDto {
  @ApiPropertyOptional({ description: ALL_PEOPLE_DESCRIPTION })
  @Optional()
  @IsBoolean({ message: 'allPeople must be true or false' })
  allPeople?: boolean;
}

export class RotateWebhookSecretQueryDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: WEBHOOK_LIMITS.keepPreviousHours,
    default: DEFAULT_KEEP_PREVIOUS_HOURS,
    description: 'Hours the old secret keeps signing next to the new one (two signatures); 0 stops it now, after a leak',
  })
  @Optional()
  @ToInteger()
  @Max(WEBHOOK_LIMITS.keepPreviousHours, { message: `keepPreviousHours must be at most ${WEBHOOK_LIMITS.keepPreviousHours}` })
  @Min(0, { message: 'keepPreviousHours must be at least 0' })
  @IsInt({ message: 'keepPreviousHours must be a whole number' })
  keepPreviousHours?: number;
}

class LastAttemptDto {
  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({ enum: DELIVERY_OUTCOMES })
  outcome!: (typeof DELIVERY_OUTCOMES)[number];

  @ApiProperty({ type: Number, nullable: true, description: 'The receiver’s HTTP status; null when there was no answer' })
  status!: number | null;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ type: [String], enum: NOTIFICATION_EVENTS, nullable: true, description: 'null: every event' })
  events!: NotificationEvent[] | null;

  @ApiProperty({ description: 'A deployment endpoint’s: every person’s events too; always false for a person’s' })
  allPeople!: boolean;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({
    enum: WEBHOOK_DISABLED_REASONS,
    nullable: true,
    description: 'owner: turned off; failing: a message failed for its whole retry window; gone: the receiver answered 410',
  })
  disabledReason!: (typeof WEBHOOK_DISABLED_REASONS)[number] | null;

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  disabledAt!: string | null;

  @ApiProperty({ example: 'x9Qa', description: 'The secret’s last four characters' })
  secretHint!: string;

  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'Until when the secret before the last rotation still signs',
  })
  previousSecretUntil!: string | null;

  @ApiProperty({ type: LastAttemptDto, nullable: true })
  lastAttempt!: LastAttemptDto | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  static of(endpoint: WebhookEndpoint): WebhookDto {
    return {
      id: endpoint.id,
      url: endpoint.url,
      description: endpoint.description,
      events: endpoint.events === null ? null : [...endpoint.events],
      allPeople: endpoint.allPeople,
      enabled: endpoint.enabled,
      disabledReason: endpoint.disabledReason,
      disabledAt: endpoint.disabledAt?.toISOString() ?? null,
      secretHint: endpoint.secretHint,
      previousSecretUntil: endpoint.previousSecretUntil?.toISOString() ?? null,
      lastAttempt: endpoint.lastAttempt
        ? { at: endpoint.lastAttempt.at.toISOString(), outcome: endpoint.lastAttempt.outcome, status: endpoint.lastAttempt.status }
        : null,
      createdAt: endpoint.createdAt.toISOString(),
      updatedAt: endpoint.updatedAt.toISOString(),
    };
  }
}

export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The signing secret, for `new Webhook(secret).verify(body, headers)`. In this answer only.',
  })
  secret!: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({ example: 'msg_5f1c…', description: 'The webhook-id header: the same on every attempt of one message' })
  messageId!: string;

  @ApiProperty({ example: 'draft.awaiting_review' })
  event!: string;

  @ApiProperty({ description: '1 for the first attempt of this message' })
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  attemptedAt!: string;

  @ApiProperty({ enum: DELIVERY_OUTCOMES })
  outcome!: (typeof DELIVERY_OUTCOMES)[number];

  @ApiProperty({ type: Number, nullable: true, description: 'The receiver’s HTTP status; null when there was no answer' })
  status!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why there was no answer: timeout, address, resolve, redirect, network, url, too_large',
  })
  failure!: string | null;

  @ApiProperty()
  durationMs!: number;

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  nextAttemptAt!: string | null;

  static of(delivery: WebhookDelivery): WebhookDeliveryDto {
    return {
      ...delivery,
      attemptedAt: delivery.attemptedAt.toISOString(),
      nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    };
  }
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'The latest attempt first' })
  items!: WebhookDeliveryDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}
