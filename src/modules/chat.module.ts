import { Module } from '@nestjs/common';
import { AskInConsoleUseCase } from '../application/chat/ask-in-console.use-case';
import { ListConversationsUseCase } from '../application/chat/list-conversations.use-case';
import { GetConfirmationUseCase } from '../application/chat/get-confirmation.use-case';
import { ListMessagesUseCase } from '../application/chat/list-messages.use-case';
import { ConversationStore } from '../application/chat/ports/conversation-store.port';
import { InterruptedTurnStore } from '../application/chat/ports/interrupted-turn-store.port';
import { SendChatMessageUseCase } from '../application/chat/send-chat-message.use-case';
import { SweepInterruptedTurnsUseCase } from '../application/chat/sweep-interrupted-turns.use-case';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { PostgresConversationStore } from '../infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresInterruptedTurnStore } from '../infrastructure/persistence/repositories/postgres-interrupted-turn-store';
import { ChatController } from '../interfaces/http/chat/chat.controller';
import { AgentModule } from './agent.module';
import { BudgetsModule } from './budgets.module';
import { IdentityModule } from './identity.module';
import { PolicyModule } from './policy.module';
import { TodoToolsModule } from './todo-tools.module';

/** The todo assistant's chat. */
@Module({
  imports: [AgentModule, IdentityModule, BudgetsModule, PolicyModule, TodoToolsModule],
  controllers: [ChatController],
  providers: [
    { provide: ConversationStore, useClass: PostgresConversationStore },
    { provide: InterruptedTurnStore, useClass: PostgresInterruptedTurnStore },
    SendChatMessageUseCase,
    ListConversationsUseCase,
    ListMessagesUseCase,
    GetConfirmationUseCase,
    SweepInterruptedTurnsUseCase,
    AskInConsoleUseCase,
    // Every server process settles chat turns and tool calls cut off by a crash: at start and
    // every CHAT_SWEEP_INTERVAL_MS.
    periodicJobProvider({
      what: 'settling interrupted chat turns',
      context: 'Chat',
      uses: SweepInterruptedTurnsUseCase,
      intervalMs: (config) => config.chatSweepIntervalMs,
      run: (sweeper) => sweeper.run(),
    }),
  ],
  exports: [AskInConsoleUseCase],
})
export class ChatModule {}
