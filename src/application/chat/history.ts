import type { AgentMessage } from '../../domain/agent/tools';
import type { StoredMessage } from '../../domain/chat/conversation';

/**
 * Read in place of an answer not stored yet: its turn is still running, or was cut off and
 * not answered yet. The model then reads turns that alternate, and sees that the earlier
 * message got no reply rather than taking two messages for one.
 */
export const NO_ANSWER_YET = '(No answer to this message yet.)';

/**
 * The stored conversation as the model reads it: an assistant turn that used tools is
 * replayed as its tool calls, their results, then its answer, so that references like
 * "the first one" can be resolved against what the person saw. The caller appends the
 * message being answered, so a person's message with no answer after it is never last.
 */
export function toAgentMessages(history: readonly StoredMessage[]): AgentMessage[] {
  return history.flatMap((message, index): AgentMessage[] => {
    if (message.role === 'user') {
      const asked: AgentMessage = { role: 'user', content: message.content };
      return history[index + 1]?.role === 'assistant' ? [asked] : [asked, { role: 'assistant', content: NO_ANSWER_YET }];
    }
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
