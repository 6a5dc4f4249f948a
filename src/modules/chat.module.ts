import { Module } from '@nestjs/common';
import { ListConversationsUseCase } from '../application/chat/list-conversations.use-case';
import { ListMessagesUseCase } from '../application/chat/list-messages.use-case';
import { ConversationStore } from '../application/chat/ports/conversation-store.port';
import { SendChatMessageUseCase } from '../application/chat/send-chat-message.use-case';
import { TypeOrmConversationStore } from '../infrastructure/persistence/repositories/typeorm-conversation-store';
import { ChatController } from '../interfaces/http/chat/chat.controller';
import { AgentModule } from './agent.module';
import { IdentityModule } from './identity.module';

/** The todo assistant's chat. */
@Module({
  imports: [AgentModule, IdentityModule],
  controllers: [ChatController],
  providers: [
    { provide: ConversationStore, useClass: TypeOrmConversationStore },
    SendChatMessageUseCase,
    ListConversationsUseCase,
    ListMessagesUseCase,
  ],
})
export class ChatModule {}
