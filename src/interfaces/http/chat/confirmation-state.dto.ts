import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import type { ConfirmationOutcome } from '../../../application/chat/get-confirmation.use-case';
import { CONFIRMATION_STATES, type ConfirmationState } from '../../../domain/agent/confirmation';
import { ConversationPathDto } from './chat.dto';

export class ConfirmationPathDto extends ConversationPathDto {
  @ApiProperty({
    format: 'uuid',
    description: "A question (pending confirmation) of that conversation, e.g. from a link's confirmation=<id>",
  })
  @IsUUID(undefined, { message: 'confirmationId must be a UUID' })
  confirmationId!: string;
}

export class ConfirmationStateDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({
    enum: CONFIRMATION_STATES,
    description:
      'open: it waits for an answer (the conversation’s pendingConfirmation); confirmed: answered yes; cancelled: answered ' +
      'no; expired: nobody answered it in time (or the answer came after it expired), which is no refusal; set-aside: the ' +
      'person sent another message instead, and it lapsed unanswered',
  })
  state!: ConfirmationState;

  @ApiProperty({ type: String, format: 'date-time', description: 'When it expires, or expired' })
  expiresAt!: string;

  @ApiProperty({
    example: 'The question expired unanswered after 10 minutes, so nothing was deleted.',
    description: 'The state, for the person',
  })
  message!: string;

  static of(outcome: ConfirmationOutcome): ConfirmationStateDto {
    return { id: outcome.id, state: outcome.state, expiresAt: outcome.expiresAt.toISOString(), message: outcome.message };
  }
}
