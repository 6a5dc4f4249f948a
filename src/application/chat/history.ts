import type { AgentMessage } from '../../domain/agent/tools';
import type { StoredMessage } from '../../domain/chat/conversation';

/**
 * The stored conversation as the model reads it: an assistant turn that used tools is
 * replayed as its tool calls, their results, then its answer, so that references like
 * "the first one" can be resolved against what the person saw.
 */
export function toAgentMessages(history: readonly StoredMessage[]): AgentMessage[] {
  return history.flatMap((message): AgentMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content }];
    const calls = message.toolCalls;
    if (calls.length === 0) return [{ role: 'assistant', content: message.content }];
    return [
      {
        role: 'assistant',
        content: null,
        toolCalls: calls.map((call) => ({
          id: call.id,
          name: call.tool,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        })),
      },
      ...calls.map(
        (call): AgentMessage => ({
          role: 'tool',
          toolCallId: call.id,
          name: call.tool,
          content: JSON.stringify(call.success ? call.result : call.error),
          isError: !call.success,
        }),
      ),
      { role: 'assistant', content: message.content },
    ];
  });
}
