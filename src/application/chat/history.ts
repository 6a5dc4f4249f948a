import type { AgentMessage } from '../../domain/agent/tools';
import { estimatedTokens, type WindowTurn } from '../../domain/chat/context-window';
import type { StoredMessage } from '../../domain/chat/conversation';
import { changesFromWords, changesInWords, type FoldedTurns } from '../../domain/chat/summary-facts';
import { TodoTools } from '../todo/tools/todo-tools';
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

/**
 * The stored conversation in exchanges (a person's message and its answer), each as the model
 * reads it, with what its tool calls did to tasks (each tool's `taskChanges`).
 */
export function windowTurns(history: readonly HistoryMessage[], tools: TodoTools = TodoTools.builtIn): WindowTurn[] {
  const turns: WindowTurn[] = [];
  for (let i = 0; i < history.length; i++) {
    const pair = history[i].role === 'user' && history[i + 1]?.role === 'assistant' ? [history[i], history[++i]] : [history[i]];
    const messages = toAgentMessages(pair);
    turns.push({
      firstSeq: pair[0].seq,
      lastSeq: pair[pair.length - 1].seq,
      storedMessages: pair.length,
      messages,
      // From the stored results, whole: a replayed one may be cut.
      done: pair.flatMap((message) => message.toolCalls.flatMap((call) => tools.taskChanges(call))),
      tokens: estimatedTokens(messages),
    });
  }
  return turns;
}

/**
 * The part of a conversation to summarise, as plain text, one line each: the summary made
 * so far, then per exchange the person's message, what its tool calls changed (a `Done:`
 * line naming each task by number and title), the other tool calls' results, the answer.
 */
export function transcriptToSummarize(previous: string | null, turns: readonly WindowTurn[], tools: TodoTools = TodoTools.builtIn): string {
  const lines = previous === null ? [] : [`${SUMMARY_SO_FAR}${oneLine(previous)}`, ''];
  for (const turn of turns) {
    const done = turn.done.length > 0 ? [changesInWords(turn.done)] : [];
    for (const message of turn.messages) {
      if (message.role === 'user') lines.push(`${PERSON_SAID}${oneLine(message.content)}`);
      else if (message.role === 'tool') {
        // A change is on the Done line; a call that changed nothing (already complete, a dry run) has nothing to say.
        if (message.isError || !tools.changesTasks(message.name))
          lines.push(`(${message.name} ${message.isError ? 'failed' : 'ran'}: ${message.content.slice(0, 300)})`);
      } else if (message.content && message.content !== NO_ANSWER_YET)
        lines.push(...done.splice(0), `${ASSISTANT_SAID}${oneLine(message.content)}`);
    }
    lines.push(...done);
  }
  return lines.join('\n');
}

/** What transcriptToSummarize wrote: the summary so far, the person's messages and what was done. */
export function readTranscript(text: string): { previous: string | null; folded: FoldedTurns } {
  const lines = text.split('\n');
  const previous = lines[0]?.startsWith(SUMMARY_SO_FAR) ? lines[0].slice(SUMMARY_SO_FAR.length) : null;
  const asked = lines.filter((line) => line.startsWith(PERSON_SAID)).map((line) => line.slice(PERSON_SAID.length));
  const done = lines.flatMap((line) => changesFromWords(line) ?? []);
  return { previous, folded: { asked, done } };
}

export const SUMMARY_SO_FAR = 'Summary so far: ';
export const PERSON_SAID = 'Person: ';
const ASSISTANT_SAID = 'Assistant: ';

/** Every message on one line: a line of the transcript is one message. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
