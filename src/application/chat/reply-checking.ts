import { decisionOf } from '../../domain/agent/decision';
import { WARNINGS } from '../../domain/agent/failures';
import { Reply } from '../../domain/agent/reply';
import { checkedReply, dataEchoes, replyProblem, type ReplyVocabulary, toolCallsInWords } from '../../domain/agent/reply-check';
import { ReplyGate } from '../../domain/agent/reply-gate';
import type { AgentMessage } from '../../domain/agent/tools';
import type { AgentRunInput, TurnObserver } from '../agent/agent-loop';
import type { Toolbox } from '../agent/ports/toolbox.port';
import type { Logger } from '../shared/ports/logger.port';
import type { TurnResult } from './turn-result';

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

/**
 * The one place a turn's reply is settled, before it is stored or shown: the model's words
 * are checked (reply-check.ts). Unfit words (JSON, an internal code, schema or validator
 * text, an identifier, a stack trace, a tool's name) give way to the server's own sentences
 * of the turn, or else to what its tool calls did in words (toolCallsInWords, in the tools'
 * own words: Toolbox.words, Toolbox.errorWording); a listener, whose stream let out only
 * words that passed (`gate`), is told the replacement (`replace`), and the line logged names
 * the rule, never the words.
 */
export class TurnReplyCheck {
  constructor(
    private readonly toolbox: Toolbox,
    private readonly logger: Logger,
  ) {}

  checked(
    result: TurnResult,
    turn: { readonly run: AgentRunInput; readonly vocabulary: ReplyVocabulary; readonly gate: ReplyGate | null },
    decisionId: string,
  ): TurnResult {
    const { run, vocabulary } = turn;
    // What the turn's own tools returned may be said back too.
    const echoes = [...vocabulary.echoes, ...result.toolCalls.flatMap((call) => (call.success ? dataEchoes(call.result ?? null) : []))];
    const checked = checkedReply(result, { ...vocabulary, echoes }, () => {
      const bounded = new Reply(run.limits.maxReplyChars);
      bounded.model(toolCallsInWords(result.toolCalls, (call) => this.toolbox.words.resultSentence(call), this.toolbox.errorWording));
      return bounded.value;
    });
    turn.gate?.finish(checked.problem === null);
    if (!checked.problem) return result;
    this.logger.warn({
      msg: "model's reply replaced",
      decisionId,
      rule: checked.problem.rule,
      found: checked.problem.found,
      modelChars: result.modelWords.length,
    });
    run.observer?.replace?.(checked.text);
    // What the person reads now is what the turn asked, if anything.
    const decision = decisionOf(result.facts, checked.text);
    return {
      ...result,
      decisionType: decision.type,
      clarificationQuestion: decision.clarificationQuestion,
      text: checked.text,
      modelWords: '',
      serverSentences: [checked.text],
      warning: result.warning === WARNINGS.SHORTENED ? null : result.warning,
    };
  }
}
