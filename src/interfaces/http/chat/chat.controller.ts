import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PinoLogger } from 'nestjs-pino';
import { AgentSettings } from '../../../application/agent/agent-settings';
import { Toolbox } from '../../../application/agent/ports/toolbox.port';
import { GetConfirmationUseCase } from '../../../application/chat/get-confirmation.use-case';
import { ListConversationsUseCase } from '../../../application/chat/list-conversations.use-case';
import { ListMessagesUseCase } from '../../../application/chat/list-messages.use-case';
import type { TurnAccountCheck } from '../../../application/chat/ports/conversation-store.port';
import { type ChatReply, SendChatMessageUseCase } from '../../../application/chat/send-chat-message.use-case';
import type { AuthenticatedPrincipal } from '../../../application/identity/ports/access-token-service.port';
import { TodoTools } from '../../../application/todo/tools/todo-tools';
import { SseWriter } from './sse-writer';
import { BearerAuthGuard, CurrentPrincipal, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { UserPathDto } from '../todo/task.dto';
import { turnFailure } from '../../../domain/agent/failures';
import type { ToolWords } from '../../../domain/agent/tool-words';
import {
  ChatErrorDto,
  ChatRequestDto,
  ChatResponseDto,
  ConversationPageDto,
  ConversationPathDto,
  MessageDto,
  MessagePageDto,
  PendingConfirmationDto,
  ToolCallDto,
  type ToolLabels,
} from './chat.dto';
import { ConfirmationPathDto, ConfirmationStateDto } from './confirmation-state.dto';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { AccountCheckedByHandler, RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

@ApiTags('chat')
@ApiErrors(400)
@RequiredScope('chat')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId')
export class ChatController {
  constructor(
    private readonly logger: PinoLogger,
    private readonly sendMessage: SendChatMessageUseCase,
    private readonly listConversations: ListConversationsUseCase,
    private readonly listMessages: ListMessagesUseCase,
    private readonly getConfirmation: GetConfirmationUseCase,
    private readonly settings: AgentSettings,
    private readonly toolbox: Toolbox,
    private readonly tools: TodoTools,
  ) {}

  /** A call's label, from its tool's descriptor. */
  private readonly labels = (tool: string) => this.tools.label(tool);

  // A turn is counted by its own per-person limit, in the statement that opens it.
  @RateLimit('chat-turn')
  @Post('chat')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'sendChatMessage',
    summary: 'Talk to the task assistant',
    description:
      'Without conversationId a new conversation starts. Deleting asks for confirmation first: the answer then carries ' +
      "pendingConfirmation (what 'yes' runs, as stored); reply 'yes delete' (or 'yes') to run exactly that, 'no' or " +
      "'cancel' to drop it, with its id as confirmationId to answer that one and no other.",
  })
  @ApiOkResponse({ type: ChatResponseDto, description: 'The assistant’s answer' })
  @ApiErrors(404, 413)
  @AccountCheckedByHandler()
  async chat(
    @Param() path: UserPathDto,
    @Body() body: ChatRequestDto,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<ChatResponseDto> {
    const reply = await this.sendMessage.execute({ userId: path.userId, ...body, account: accountLeftToTurn(principal) });
    this.logTurn(reply);
    return toResponse(reply, this.toolbox.words, this.labels);
  }

  @RateLimit('chat-turn')
  @Post('chat/stream')
  @ApiOperation({
    operationId: 'streamChatMessage',
    summary: 'Talk to the task assistant, as Server-Sent Events',
    description:
      'Events: tool_call {tool, arguments}; tool_result (a tool call as in the plain answer); delta {text} ' +
      '(the answer in pieces as the model writes them, a sentence at a time once its words passed the check made before ' +
      "an answer is stored; joined, they are done's response unless replace came); " +
      "replace {text} (the whole answer, instead of the deltas sent: the model's words failed the check made before " +
      'an answer is stored); confirmation_required ' +
      '{prompt, pendingConfirmation} (the question, and what yes runs as stored); ' +
      "error {message, category} (a failed turn: the friendly sentence and its category, as the answer's error); done (the " +
      'same body as POST /chat). The turn is stored the same way when the client disconnects.',
  })
  @ApiOkResponse({
    description: 'An event stream ending with done',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiErrors(404, 413)
  @AccountCheckedByHandler()
  async stream(
    @Param() path: UserPathDto,
    @Body() body: ChatRequestDto,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Res() res: Response,
  ): Promise<void> {
    const sse = new SseWriter(res);
    try {
      const reply = await this.sendMessage.execute(
        { userId: path.userId, ...body, account: accountLeftToTurn(principal) },
        {
          toolCall: (call) => sse.send('tool_call', call),
          toolResult: (record) => sse.send('tool_result', ToolCallDto.of(record, this.labels)),
          text: (text) => sse.send('delta', { text }),
          replace: (text) => sse.send('replace', { text }),
        },
      );
      this.logTurn(reply);
      const { pendingConfirmation } = reply;
      if (pendingConfirmation !== null) {
        sse.send('confirmation_required', {
          prompt: pendingConfirmation.prompt,
          pendingConfirmation: PendingConfirmationDto.of(pendingConfirmation, this.toolbox.words),
        });
      }
      if (reply.error !== null) sse.send('error', ChatErrorDto.of(reply.error));
      sse.send('done', toResponse(reply, this.toolbox.words, this.labels));
    } catch (error) {
      // Before the first event the exception filter still answers with a status (404…).
      if (!sse.started) throw error;
      this.logger.error({ err: error }, 'chat stream failed after it started');
      sse.send('error', ChatErrorDto.of(turnFailure('UNKNOWN', this.settings.supportContact ?? null)));
    }
    sse.end();
  }

  private logTurn(reply: ChatReply): void {
    // One line per turn; the message itself stays out of the logs.
    const summary = {
      decisionId: reply.decision.id,
      conversationId: reply.conversationId,
      decision: reply.decision.type,
      status: reply.status,
      iterations: reply.iterations,
      tools: reply.toolCalls.map((call) => `${call.tool}:${call.success ? 'ok' : (call.error?.code ?? 'failed')}`),
    };
    if (reply.status === 'completed') this.logger.info(summary, 'chat turn');
    else this.logger.warn(summary, 'chat turn did not complete');
  }

  @RateLimit('api')
  @Get('conversations')
  @ApiOperation({
    operationId: 'listConversations',
    summary: "The user's conversations, most recently active first",
    description: 'One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: ConversationPageDto, description: 'One page of conversations' })
  async conversations(@Param() path: UserPathDto, @Query() query: PageQueryDto): Promise<ConversationPageDto> {
    const page = await this.listConversations.execute({
      userId: path.userId,
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return {
      items: page.items.map((c) => ({
        id: c.id,
        title: c.title,
        createdAt: c.createdAt.toISOString(),
        updatedAt: c.updatedAt.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  }

  @RateLimit('api')
  @Get('conversations/:conversationId/messages')
  @ApiOperation({
    operationId: 'listMessages',
    summary: 'Messages of a conversation, with the tool calls of each answer',
    description:
      "The person's messages and the assistant's answers, oldest first, and the question the conversation still waits on " +
      '(pendingConfirmation). One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: MessagePageDto, description: 'One page of messages' })
  @ApiErrors(404)
  async messages(@Param() path: ConversationPathDto, @Query() query: PageQueryDto): Promise<MessagePageDto> {
    const page = await this.listMessages.execute({
      userId: path.userId,
      conversationId: path.conversationId,
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return {
      items: page.items.map((message) => MessageDto.of(message, this.labels)),
      nextCursor: page.nextCursor,
      pendingConfirmation: page.pendingConfirmation && PendingConfirmationDto.of(page.pendingConfirmation, this.toolbox.words),
    };
  }

  @RateLimit('api')
  @Get('conversations/:conversationId/confirmations/:confirmationId')
  @ApiOperation({
    operationId: 'getConfirmation',
    summary: 'What became of a question the conversation asked',
    description:
      'A question (pending confirmation) of the conversation, whatever became of it: open, answered yes or no, set aside, or ' +
      'expired unanswered, with a sentence for the person. A link to a question (#chat?conversation=<c>&confirmation=<id>, ' +
      'a notification’s or an MCP client’s) reads it here; reading it answers nothing.',
  })
  @ApiOkResponse({ type: ConfirmationStateDto, description: 'The question’s state' })
  @ApiErrors({ status: 404, description: 'CHAT.CONFIRMATION_NOT_FOUND: no such question in that conversation of the user’s' })
  async confirmation(@Param() path: ConfirmationPathDto): Promise<ConfirmationStateDto> {
    return ConfirmationStateDto.of(await this.getConfirmation.execute(path));
  }
}

/**
 * What the bearer guard left of the account check to the turn: on these routes (marked
 * AccountCheckedByHandler) a session's account is read by the turn's opening statement, under
 * the version its token was issued under; any other token's account the guard has read.
 */
function accountLeftToTurn(principal: AuthenticatedPrincipal): TurnAccountCheck {
  return principal.accountCheck
    ? { kind: 'check', credentialsVersion: principal.accountCheck.credentialsVersion }
    : { kind: 'checked-by-guard' };
}

/** `words`: the tools' own (Toolbox.words), which name what a question's "yes" acts on; `labels`: each call's title. */
function toResponse(reply: ChatReply, words: ToolWords, labels: ToolLabels): ChatResponseDto {
  return {
    conversationId: reply.conversationId,
    response: reply.response,
    decision: reply.decision,
    messages: reply.messages.map((message) => ({ role: message.role, content: message.content })),
    toolCalls: reply.toolCalls.map((call) => ToolCallDto.of(call, labels)),
    iterations: reply.iterations,
    status: reply.status,
    finishReason: reply.finishReason,
    warning: reply.warning,
    pendingConfirmation: reply.pendingConfirmation && PendingConfirmationDto.of(reply.pendingConfirmation, words),
    success: reply.success,
    error: reply.error && ChatErrorDto.of(reply.error),
  };
}
