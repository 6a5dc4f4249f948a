import { ApiProperty } from '@nestjs/swagger';
import { type DecisionRecord, type DecisionWithToolCalls } from '../../../application/audit/ports/audit-reader.port';
import { decimalText } from '../../../domain/agent/money';
import { INTENT_TYPES, type IntentType, OUTCOME_CATEGORIES, type OutcomeCategory } from '../../../domain/agent/turn-outcome';
import { AuditRowDto } from './admin-audit-logs.dto';

export class DecisionLogDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'uuid', description: 'The user the turn or cycle ran for' })
  actorId!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ada@example.com',
    description: "That user's email as it is now; null when the account no longer exists",
  })
  actorEmail!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Set for a chat turn' })
  conversationId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Set for an outreach cycle' })
  campaignId!: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  outreachTaskId!: string | null;

  @ApiProperty({ example: 'INVOKE_TOOL', description: "A chat turn's decision type, or the cycle's action or code" })
  decisionType!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Which one: 1. Call mum or 2. Call the bank?',
    description: "A chat turn's, when decisionType is ASK_CLARIFICATION: the question the person was asked; null otherwise",
  })
  clarificationQuestion!: string | null;

  @ApiProperty({ example: 'completed' })
  status!: string;

  @ApiProperty({ description: 'Model calls made' })
  iterations!: number;

  @ApiProperty({ example: 'offline' })
  provider!: string;

  @ApiProperty()
  model!: string;

  @ApiProperty()
  promptTokens!: number;

  @ApiProperty()
  completionTokens!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "What its model calls cost at the price table (LLM_PRICES), in the prices' currency, unrounded; null when no prices are configured",
  })
  cost!: number | null;

  @ApiProperty()
  durationMs!: number;

  @ApiProperty({ type: String, nullable: true })
  failureClass!: string | null;

  @ApiProperty({ type: String, nullable: true })
  providerRequestId!: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      "A chat turn's: the person's message it answered (the id of that message in the conversation's messages; " +
      'GET /admin/decisions/:id shows it whole as message)',
  })
  messageId!: string | null;

  @ApiProperty({
    enum: INTENT_TYPES,
    nullable: true,
    description:
      "A chat turn's: what the person wanted, as its tool calls show it (NONE: no tool; BULK: a bulk change or changes of " +
      'several kinds); PENDING while it runs, UNKNOWN when it was cut off. Null for outreach cycles',
  })
  intentType!: IntentType | null;

  @ApiProperty({
    enum: OUTCOME_CATEGORIES,
    nullable: true,
    description:
      "A chat turn's: how it ended for the person (ASKED: a question or a confirmation; REFUSED: a rule declined it); " +
      'PENDING while it runs, INTERRUPTED when it was cut off. Null for outreach cycles',
  })
  outcomeCategory!: OutcomeCategory | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0,
    description: "A finished chat turn's sampling temperature: the server's, or the one the request asked for",
  })
  temperature!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1024,
    description: "A finished chat turn's most tokens per model call: the server's, or the request's own",
  })
  maxTokens!: number | null;

  static of(decision: DecisionRecord): DecisionLogDto {
    return {
      id: decision.id,
      createdAt: decision.createdAt.toISOString(),
      actorId: decision.actorId,
      actorEmail: decision.actorEmail,
      conversationId: decision.conversationId,
      campaignId: decision.campaignId,
      outreachTaskId: decision.outreachTaskId,
      decisionType: decision.decisionType,
      clarificationQuestion: decision.clarificationQuestion,
      status: decision.status,
      iterations: decision.iterations,
      provider: decision.provider,
      model: decision.model,
      promptTokens: decision.promptTokens,
      completionTokens: decision.completionTokens,
      cost: decision.cost === null ? null : Number(decimalText(decision.cost)),
      durationMs: decision.durationMs,
      failureClass: decision.failureClass,
      providerRequestId: decision.providerRequestId,
      messageId: decision.messageId,
      intentType: decision.intentType,
      outcomeCategory: decision.outcomeCategory,
      temperature: decision.temperature,
      maxTokens: decision.maxTokens,
    };
  }
}

export class DecisionLogPageDto {
  @ApiProperty({ type: [DecisionLogDto], description: 'Newest first' })
  items!: DecisionLogDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the older decisions' })
  nextCursor!: string | null;
}

export class TurnContextDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The conversation summary the model read' })
  summaryId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The summary's text" })
  summary!: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'First stored message read word for word (its sequence number)' })
  firstSeq!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Last stored message read word for word' })
  lastSeq!: number | null;

  @ApiProperty({ description: 'Stored messages read word for word' })
  messages!: number;

  @ApiProperty({ description: 'Estimated tokens of the instructions, summary and messages' })
  estimatedTokens!: number;
}

/** The person's message a chat turn answered, as stored. */
export class TurnQuestionMessageDto {
  @ApiProperty({ format: 'uuid', description: 'messageId' })
  id!: string;

  @ApiProperty({ example: 'mark the call one done' })
  content!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;
}

export class DecisionLogDetailDto extends DecisionLogDto {
  @ApiProperty({ type: [AuditRowDto], description: 'Its audit rows, in sequence order' })
  toolCalls!: AuditRowDto[];

  @ApiProperty({ type: TurnContextDto, nullable: true, description: 'A chat turn: what the model was told besides the message' })
  context!: TurnContextDto | null;

  @ApiProperty({
    type: TurnQuestionMessageDto,
    nullable: true,
    description: "A chat turn: the person's message it answered (the one messageId names); null for outreach cycles",
  })
  message!: TurnQuestionMessageDto | null;

  static withToolCalls(decision: DecisionWithToolCalls): DecisionLogDetailDto {
    const { message } = decision;
    return {
      ...DecisionLogDto.of(decision),
      toolCalls: decision.toolCalls.map((row) => AuditRowDto.of(row)),
      context: decision.context,
      message: message && { id: message.id, content: message.content, createdAt: message.createdAt.toISOString() },
    };
  }
}
