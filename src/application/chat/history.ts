import type { AgentMessage } from '../../domain/agent/tools';
import { estimatedTokens, type WindowTurn } from '../../domain/chat/context-window';
import type { StoredMessage } from '../../domain/chat/conversation';
import type { HistoryMessage } from './ports/conversation-store.port';

/**
 * A stored tool result replayed in a later turn is cut to this many characters: the model
 * saw it whole in its own turn, and one old list must not fill the window.
 */
export const REPLAYED_RESULT_MAX_CHARS = 2_000;

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
      ...calls.map((call): AgentMessage => ({
        role: 'tool',
        toolCallId: call.id,
        name: call.tool,
        content: replayed(JSON.stringify(call.success ? call.result : call.error) ?? 'null'),
        isError: !call.success,
      })),
      { role: 'assistant', content: message.content },
    ];
  });
}

function replayed(content: string): string {
  return content.length <= REPLAYED_RESULT_MAX_CHARS
    ? content
    : `${content.slice(0, REPLAYED_RESULT_MAX_CHARS)}… (cut: ${content.length} characters)`;
}

/** The stored conversation in exchanges (a person's message and its answer), each as the model reads it. */
export function windowTurns(history: readonly HistoryMessage[]): WindowTurn[] {
  const turns: WindowTurn[] = [];
  for (let i = 0; i < history.length; i++) {
    const pair = history[i].role === 'user' && history[i + 1]?.role === 'assistant' ? [history[i], history[++i]] : [history[i]];
    const messages = toAgentMessages(pair);
    turns.push({
      firstSeq: pair[0].seq,
      lastSeq: pair[pair.length - 1].seq,
      storedMessages: pair.length,
      messages,
      tokens: estimatedTokens(messages),
    });
  }
  return turns;
}

/** The part of a conversation to summarise, as plain text, after the summary made so far. */
export function transcriptToSummarize(previous: string | null, turns: readonly WindowTurn[]): string {
  const lines = previous === null ? [] : [`${SUMMARY_SO_FAR}${previous}`, ''];
  for (const message of turns.flatMap((turn) => turn.messages)) {
    if (message.role === 'user') lines.push(`${PERSON_SAID}${message.content}`);
    else if (message.role === 'tool')
      lines.push(`(${message.name} ${message.isError ? 'failed' : 'ran'}: ${message.content.slice(0, 300)})`);
    else if (message.content && message.content !== NO_ANSWER_YET) lines.push(`Assistant: ${message.content}`);
  }
  return lines.join('\n');
}

export const SUMMARY_SO_FAR = 'Summary so far: ';
export const PERSON_SAID = 'Person: ';
