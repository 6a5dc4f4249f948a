import { type BeforeApplicationShutdown, Inject, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { ListConversationsUseCase } from '../application/chat/list-conversations.use-case';
import { ListMessagesUseCase } from '../application/chat/list-messages.use-case';
import { ConversationStore } from '../application/chat/ports/conversation-store.port';
import { InterruptedTurnStore } from '../application/chat/ports/interrupted-turn-store.port';
import { SendChatMessageUseCase } from '../application/chat/send-chat-message.use-case';
import { SweepInterruptedTurnsUseCase } from '../application/chat/sweep-interrupted-turns.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { PeriodicJob } from '../infrastructure/periodic-job';
import { PostgresConversationStore } from '../infrastructure/persistence/repositories/postgres-conversation-store';
import { PostgresInterruptedTurnStore } from '../infrastructure/persistence/repositories/postgres-interrupted-turn-store';
import { ChatController } from '../interfaces/http/chat/chat.controller';
import { AgentModule } from './agent.module';
import { IdentityModule } from './identity.module';

/**
 * Every server process settles chat turns and tool calls cut off by a crash: at start and
 * every CHAT_SWEEP_INTERVAL_MS. It stops before the database closes.
 */
@Injectable()
class ChatSweepLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sweeping: PeriodicJob;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    sweeper: SweepInterruptedTurnsUseCase,
  ) {
    this.sweeping = new PeriodicJob('settling interrupted chat turns', () => sweeper.run(), new Logger('Chat'));
  }

  onApplicationBootstrap(): void {
    this.sweeping.start(this.config.chatSweepIntervalMs);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.sweeping.stop();
  }
}

/** The todo assistant's chat. */
@Module({
  imports: [AgentModule, IdentityModule],
  controllers: [ChatController],
  providers: [
    { provide: ConversationStore, useClass: PostgresConversationStore },
    { provide: InterruptedTurnStore, useClass: PostgresInterruptedTurnStore },
    SendChatMessageUseCase,
    ListConversationsUseCase,
    ListMessagesUseCase,
    SweepInterruptedTurnsUseCase,
    ChatSweepLifecycle,
  ],
})
export class ChatModule {}
