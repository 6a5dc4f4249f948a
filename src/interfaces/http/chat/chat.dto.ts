import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import {
  DECISION_TYPES,
  type DecisionType,
  FINISH_REASONS,
  type TurnFinishReason,
  TURN_STATUSES,
  type TurnStatus,
} from '../../../domain/agent/decision';
import { type AnswerStatus, MESSAGE_MAX_LENGTH, type StoredMessage, type ToolCallRecord } from '../../../domain/chat/conversation';
import { UserPathDto } from '../todo/task.dto';
import { Optional } from '../shared/fields';

const ANSWER_STATUSES: AnswerStatus[] = [...TURN_STATUSES, 'interrupted'];

export class ChatRequestDto {
  @ApiProperty({ example: 'add buy milk', minLength: 1, maxLength: MESSAGE_MAX_LENGTH })
  @MaxLength(MESSAGE_MAX_LENGTH)
  @MinLength(1)
  @IsString()
  message!: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Omit to start a new conversation' })
  @Optional()
  @IsUUID()
  conversationId?: string;
}

export class ToolCallErrorDto {
  @ApiProperty({ example: 'TASK_NOT_FOUND' })
  code!: string;

  @ApiProperty()
  message!: string;

  @ApiPropertyOptional({ type: Object })
  details?: unknown;
}

export class ToolCallDto {
  @ApiProperty({ example: 'add_task' })
  tool!: string;

  @ApiProperty({ description: 'As validated, or the raw text when it was not valid JSON', oneOf: [{ type: 'object' }, { type: 'string' }] })
  arguments!: object | string;

  @ApiProperty()
  success!: boolean;

  @ApiPropertyOptional({ type: Object, description: 'When success is true' })
  result?: unknown;

  @ApiPropertyOptional({ type: ToolCallErrorDto, description: 'When success is false' })
  error?: ToolCallErrorDto;

  @ApiProperty()
  durationMs!: number;

  static of(record: ToolCallRecord): ToolCallDto {
    return {
      tool: record.tool,
      arguments: record.arguments,
      success: record.success,
      ...(record.success ? { result: record.result } : { error: record.error }),
      durationMs: record.durationMs,
    };
  }
}

export class DecisionDto {
  @ApiProperty({ enum: DECISION_TYPES })
  type!: DecisionType;

  @ApiProperty({ format: 'uuid', description: 'Links to the decision log and the audit rows of this turn' })
  id!: string;
}

export class ChatResponseDto {
  @ApiProperty({ format: 'uuid' })
  conversationId!: string;

  @ApiProperty({ example: "Got it! Added 'Buy milk' to your list." })
  response!: string;

  @ApiProperty({ type: DecisionDto })
  decision!: DecisionDto;

  @ApiProperty({ type: [ToolCallDto] })
  toolCalls!: ToolCallDto[];

  @ApiProperty({ description: 'Model calls made in this turn' })
  iterations!: number;

  @ApiProperty({ enum: TURN_STATUSES })
  status!: TurnStatus;

  @ApiProperty({
    enum: FINISH_REASONS,
    description:
      'Why the turn ended: stop (answered), length (the answer hit the token limit), content_filter, confirmation_required, ' +
      'max_iterations or max_tool_calls (a limit was reached; the answer is worded from what was gathered), timeout, error',
  })
  finishReason!: TurnFinishReason;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Set when the answer may be incomplete (a limit was reached, the answer was shortened)',
    example: null,
  })
  warning!: string | null;
}

export class ConversationPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "One of the user's conversations" })
  @IsUUID(undefined, { message: 'conversationId must be a UUID' })
  conversationId!: string;
}

export class ConversationDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'add buy milk' })
  title!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt!: string;
}

export class ConversationPageDto {
  @ApiProperty({ type: [ConversationDto] })
  items!: ConversationDto[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor!: string | null;
}

export class MessageDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: ['user', 'assistant'] })
  role!: 'user' | 'assistant';

  @ApiProperty()
  content!: string;

  @ApiProperty({ type: [ToolCallDto] })
  toolCalls!: ToolCallDto[];

  @ApiProperty({ enum: DECISION_TYPES, nullable: true })
  decisionType!: DecisionType | null;

  @ApiProperty({
    enum: ANSWER_STATUSES,
    nullable: true,
    description:
      "The answer's turn: how it ended, or 'interrupted' when it was cut off and answered afterwards; null on the person's messages",
  })
  status!: AnswerStatus | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  static of(message: StoredMessage): MessageDto {
    return {
      id: message.id,
      role: message.role,
      content: message.content,
      toolCalls: message.toolCalls.map((call) => ToolCallDto.of(call)),
      decisionType: message.decisionType,
      status: message.status,
      createdAt: message.createdAt.toISOString(),
    };
  }
}

export class MessagePageDto {
  @ApiProperty({ type: [MessageDto], description: 'Oldest first' })
  items!: MessageDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the older messages' })
  nextCursor!: string | null;
}
