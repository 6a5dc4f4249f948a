import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import {
  BRIEF_MAX_LENGTH,
  type CampaignBrief,
  type MessageTemplates,
  PLACEHOLDERS,
  TEMPLATE_MAX_LENGTH,
} from '../../../domain/outreach/brief';
import { Optional, OptionalOrNull } from '../shared/fields';

/**
 * A campaign's brief and message templates, in requests and answers. The domain
 * (src/domain/outreach/brief.ts) checks them again: trimmed, one line where it says so, and
 * only known placeholders in a template.
 */

const PLACEHOLDER_LIST = PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ');

/** One optional text of the brief or the templates; null (or blank text) clears it. */
function BriefText(path: string, maxLength: number, description: string, example: string): PropertyDecorator {
  const message = `${path} must be text of at most ${maxLength} characters, or null to clear it`;
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength, description, example }),
    OptionalOrNull(),
    MaxLength(maxLength, { message }),
    IsString({ message }),
  );
}

export class CampaignBriefRequestDto {
  @BriefText('brief.offer', BRIEF_MAX_LENGTH.offer, 'What the messages offer', 'A free 30-minute review of your CI pipeline')
  offer?: string | null;

  @BriefText('brief.tone', BRIEF_MAX_LENGTH.tone, 'How they sound (one line), e.g. friendly, formal, casual', 'friendly')
  tone?: string | null;

  @BriefText(
    'brief.callToAction',
    BRIEF_MAX_LENGTH.callToAction,
    'What the lead is asked to do (one line)',
    'Reply with a time that suits you',
  )
  callToAction?: string | null;

  @BriefText('brief.senderName', BRIEF_MAX_LENGTH.senderName, 'Who the messages come from (one line)', 'Sam Rivera')
  senderName?: string | null;

  @BriefText('brief.signature', BRIEF_MAX_LENGTH.signature, 'The closing lines', 'Sam Rivera\nAcme Tools')
  signature?: string | null;
}

const TEMPLATE_DESCRIPTION = `Placeholders: ${PLACEHOLDER_LIST}; any other is refused (400)`;

export class MessageTemplatesRequestDto {
  @BriefText(
    'templates.linkedinMessage',
    TEMPLATE_MAX_LENGTH.linkedinMessage,
    `The LinkedIn message. ${TEMPLATE_DESCRIPTION}`,
    'Hi {{firstName}}, I saw your work as {{title}} at {{company}}. {{signature}}',
  )
  linkedinMessage?: string | null;

  @BriefText(
    'templates.emailSubject',
    TEMPLATE_MAX_LENGTH.emailSubject,
    `The email's subject (one line). ${TEMPLATE_DESCRIPTION}`,
    'A question for {{company}}',
  )
  emailSubject?: string | null;

  @BriefText(
    'templates.emailBody',
    TEMPLATE_MAX_LENGTH.emailBody,
    `The email's body. ${TEMPLATE_DESCRIPTION}`,
    'Hi {{firstName}},\n\nWould a short call next week suit you?\n\n{{signature}}',
  )
  emailBody?: string | null;
}

export const BRIEF_DESCRIPTION =
  'What the messages say and how: given to the planner with every cycle. A field given replaces the one stored, ' +
  'null or blank text clears it, a field left out stays';

export const TEMPLATES_DESCRIPTION =
  `Message templates, filled per lead from its name and profile look-up and from the brief. ${TEMPLATE_DESCRIPTION}. ` +
  'A field given replaces the one stored, null or blank text clears it, a field left out stays';

export class CampaignBriefDto {
  @ApiProperty({ type: String, nullable: true, maxLength: BRIEF_MAX_LENGTH.offer }) offer!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: BRIEF_MAX_LENGTH.tone }) tone!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: BRIEF_MAX_LENGTH.callToAction }) callToAction!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: BRIEF_MAX_LENGTH.senderName }) senderName!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: BRIEF_MAX_LENGTH.signature }) signature!: string | null;

  static of(brief: CampaignBrief): CampaignBriefDto {
    return { ...brief };
  }
}

export class MessageTemplatesDto {
  @ApiProperty({ type: String, nullable: true, maxLength: TEMPLATE_MAX_LENGTH.linkedinMessage }) linkedinMessage!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: TEMPLATE_MAX_LENGTH.emailSubject }) emailSubject!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: TEMPLATE_MAX_LENGTH.emailBody }) emailBody!: string | null;

  static of(templates: MessageTemplates): MessageTemplatesDto {
    return { ...templates };
  }
}

/** The `brief` field of a create or update request. */
export function BriefField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: CampaignBriefRequestDto, description: BRIEF_DESCRIPTION }),
    Optional(),
    ValidateNested(),
    Type(() => CampaignBriefRequestDto),
    IsObject({ message: 'brief must be an object' }),
  );
}

/** The `templates` field of a create or update request. */
export function TemplatesField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: MessageTemplatesRequestDto, description: TEMPLATES_DESCRIPTION }),
    Optional(),
    ValidateNested(),
    Type(() => MessageTemplatesRequestDto),
    IsObject({ message: 'templates must be an object' }),
  );
}
