import { dataEchoes, replyProblem, type ReplyVocabulary } from '../../domain/agent/reply-check';
import { ReplyGate } from '../../domain/agent/reply-gate';
import type { AgentMessage } from '../../domain/agent/tools';
import type { TurnObserver } from '../agent/agent-loop';

/**
 * What the person wrote and what their own data holds in the conversation window, which may
 * be said back whatever it looks like: their messages, and the values (not the keys or ids)
 * of the tool results the model read.
 */
export function echoesOf(messages: readonly AgentMessage[]): string[] {
  return messages.flatMap((message) => {
    if (message.role === 'user') return [message.content];
    if (message.role !== 'tool' || message.isError) return [];
    try {
      return dataEchoes(JSON.parse(message.content));
    } catch {
      return [message.content];
    }
  });
}

/**
 * A listener that reads the reply as it is made gets only words that passed the reply check
 * so far (ReplyGate): the model's words are held to the end of each sentence, or of its call
 * (a tool call follows), and checked with what the person and their tools said up to then.
 */
export function checkedObserver(
  observer: TurnObserver | undefined,
  vocabulary: ReplyVocabulary,
): { observer: TurnObserver; gate: ReplyGate } | null {
  const text = observer?.text?.bind(observer);
  if (!observer || !text) return null;
  const echoes = [...vocabulary.echoes];
  const gate = new ReplyGate(
    (words) => replyProblem(words, { toolNames: vocabulary.toolNames, echoes }) === null,
    (piece) => text(piece),
  );
  return {
    gate,
    observer: {
      ...observer,
      text: (piece, from) => gate.piece(piece, from ?? 'server'),
      toolCall: (call) => {
        gate.boundary();
        observer.toolCall?.(call);
      },
      toolResult: (record) => {
        if (record.success) echoes.push(...dataEchoes(record.result ?? null));
        observer.toolResult?.(record);
      },
      replace: observer.replace?.bind(observer),
    },
  };
}
