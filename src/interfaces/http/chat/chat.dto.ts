import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNumber, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import type { ToolLabel } from '../../../application/todo/tools/todo-tools';
import {
  CONFIRMATION_ITEM_CHARS,
  CONFIRMATION_ITEMS_MAX,
  confirmationTargets,
  type PendingConfirmation,
} from '../../../domain/agent/confirmation';
import type { ToolWords } from '../../../domain/agent/tool-words';
import {
  DECISION_TYPES,
  type DecisionType,
  FINISH_REASONS,
  type TurnFinishReason,
  TURN_STATUSES,
  type TurnStatus,
} from '../../../domain/agent/decision';
import { FAILURE_CLASSES, type FailureClass, type TurnFailure } from '../../../domain/agent/failures';
import { TEMPERATURE_RANGE } from '../../../domain/agent/limits';
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

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "The pending confirmation (pendingConfirmation.id) that this 'yes' or 'no' answers. With it, the answer resolves " +
      "exactly that one, or nothing when it is no longer open; without it, the conversation's open one.",
  })
  @Optional()
  @IsUUID()
  confirmationId?: string;

  @ApiPropertyOptional({
    minimum: TEMPERATURE_RANGE.min,
    maximum: TEMPERATURE_RANGE.max,
    example: 0.2,
    description:
      "This turn's sampling temperature for its model calls, instead of the server's (LLM_TEMPERATURE); out of range is 400 " +
      'CHAT.INVALID_SAMPLING',
  })
  @Optional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'temperature must be a number' })
  temperature?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 256,
    description:
      "The most tokens each of this turn's model calls may write, instead of the server's (LLM_MAX_TOKENS, 1024 by default): " +
      'fewer, never more; out of range is 400 CHAT.INVALID_SAMPLING',
  })
  @Optional()
  @IsInt({ message: 'maxTokens must be a whole number' })
  maxTokens?: number;
}

/** A failed turn as the person is told it: the plain answer's `error`, and the stream's `error` event. */
export class ChatErrorDto {
  @ApiProperty({ example: "I'm having trouble connecting to my AI service. Please try again.", description: 'The friendly sentence' })
  message!: string;

  @ApiProperty({
    enum: FAILURE_CLASSES,
    example: 'PROVIDER_UNAVAILABLE',
    description: "The failure's class in the error taxonomy, which the sentence is for",
  })
  category!: FailureClass;

  static of(failure: TurnFailure): ChatErrorDto {
    return { message: failure.message, category: failure.category };
  }
}

/** What a "yes" runs, as the server stored it: a client draws its question from this, never from the answer's words. */
export class PendingConfirmationDto {
  @ApiProperty({ format: 'uuid', description: "Send it back as confirmationId with 'yes' or 'no'" })
  id!: string;

  @ApiProperty({
    example: 'delete_task',
    description: "The tool 'yes' runs: delete_task, or bulk_change (several changes to tasks, each run once)",
  })
  tool!: string;

  @ApiProperty({ example: 7, description: 'How many things it acts on: the tasks it deletes, or the changes it makes' })
  count!: number;

  @ApiProperty({
    type: [String],
    maxItems: CONFIRMATION_ITEMS_MAX,
    example: ['Buy milk', 'Call mum'],
    description:
      `The first ${CONFIRMATION_ITEMS_MAX} of them, from the stored call: each task by the title it was shown with, or each ` +
      `change ("complete task 3"); each at most ${CONFIRMATION_ITEM_CHARS} characters (a longer one ends with "…")`,
  })
  items!: string[];

  @ApiProperty({ type: String, format: 'date-time', description: "After this a 'yes' changes nothing" })
  expiresAt!: string;

  /** `words`: the tools' own (Toolbox.words), which name what "yes" acts on. */
  static of(action: PendingConfirmation, words: ToolWords): PendingConfirmationDto {
    const { count, items } = confirmationTargets(action, words);
    return { id: action.id, tool: action.tool, count, items: [...items], expiresAt: action.expiresAt.toISOString() };
  }
}

export class ToolCallErrorDto {
  @ApiProperty({ example: 'TASK_NOT_FOUND' })
  code!: string;

  @ApiProperty()
  message!: string;

  @ApiPropertyOptional({ type: Object })
  details?: unknown;
}

/** How a tool call is labelled: its tool's title and whether it changes tasks (TodoTools.label). */
export type ToolLabels = (tool: string) => ToolLabel;

export class ToolCallDto {
  @ApiProperty({ example: 'add_task' })
  tool!: string;

  @ApiProperty({ example: 'Add a task', description: "The tool's title, what a person calls it; a name that is no tool's is its own" })
  title!: string;

  @ApiProperty({ description: 'The tool changes tasks (a client re-reads the list after a successful call)' })
  changesTasks!: boolean;

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

  static of(record: ToolCallRecord, labels: ToolLabels): ToolCallDto {
    return {
      tool: record.tool,
      ...labels(record.tool),
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

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Which one: 1. Call mum or 2. Call the bank?',
    description:
      'Set when type is ASK_CLARIFICATION: the question the person was asked (a choice among their tasks, a detail a ' +
      'change needs, what they meant), as the response words it; null otherwise',
  })
  clarificationQuestion!: string | null;
}

/** One message of the turn, as the agent service contract shapes a message. */
export class TurnMessageDto {
  @ApiProperty({ enum: ['user', 'assistant'] })
  role!: 'user' | 'assistant';

  @ApiProperty({ example: 'add buy milk' })
  content!: string;
}

export class ChatResponseDto {
  @ApiProperty({ format: 'uuid' })
  conversationId!: string;

  @ApiProperty({ example: "Got it! Added 'Buy milk' to your list." })
  response!: string;

  @ApiProperty({ type: DecisionDto })
  decision!: DecisionDto;

  @ApiProperty({
    type: [TurnMessageDto],
    description: "The turn's own messages, oldest first: the person's message as stored, then the answer (the response)",
  })
  messages!: TurnMessageDto[];

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

  @ApiProperty({
    type: PendingConfirmationDto,
    nullable: true,
    description: "Set when the answer asks the person's confirmation (finishReason confirmation_required): what 'yes' runs",
  })
  pendingConfirmation!: PendingConfirmationDto | null;

  @ApiProperty({ description: 'False when the turn failed (status error); response then is the sentence in error' })
  success!: boolean;

  @ApiProperty({
    type: ChatErrorDto,
    nullable: true,
    description: "Set when the turn failed: the friendly sentence and its category, as the stream's error event carries them",
  })
  error!: ChatErrorDto | null;
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

  static of(message: StoredMessage, labels: ToolLabels): MessageDto {
    return {
      id: message.id,
      role: message.role,
      content: message.content,
      toolCalls: message.toolCalls.map((call) => ToolCallDto.of(call, labels)),
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

  @ApiProperty({
    type: PendingConfirmationDto,
    nullable: true,
    description: "The conversation's open question, unexpired: what 'yes' runs. It belongs to the newest answer.",
  })
  pendingConfirmation!: PendingConfirmationDto | null;
}
