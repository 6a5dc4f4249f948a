import type { Amount } from '../../domain/agent/money';
import type { AgentMessage } from '../../domain/agent/tools';
import { estimatedFixedTokens, estimatedTokens, planWindow } from '../../domain/chat/context-window';
import type { AgentLoop, AgentRunInput } from '../agent/agent-loop';
import type { TokenUsage } from '../agent/ports/language-model.port';
import type { IdGenerator } from '../shared/ports/id-generator.port';
import { CONVERSATION_SUMMARY_PROMPT, SUMMARY_MAX_CHARS, withSummary } from './conversation-summary.prompt';
import { transcriptToSummarize, windowTurns } from './history';
import type { ConversationDigest, TurnContext, TurnContextRecord } from './ports/conversation-store.port';
import type { TodoTools } from '../todo/tools/todo-tools';

/** What of the conversation a turn's model reads, what making it cost, and what the decision row records of it. */
export interface TurnWindow {
  readonly messages: AgentMessage[];
  readonly summary: ConversationDigest | null;
  readonly newSummary: ConversationDigest | null;
  readonly record: TurnContextRecord;
  readonly usage: TokenUsage;
  readonly cost: Amount;
}

/**
 * What of the conversation the model reads this turn: the latest summary and the newest
 * exchanges within AGENT_CONTEXT_TOKENS. When the exchanges since the summary no longer fit
 * and `summarize` (the turn calls the model), the older ones are summarised first (by the
 * model, within the turn's deadline and budget) and the summary is stored with the turn; if
 * that fails, the turn goes on with the newest exchanges and the next turn tries again.
 */
export async function turnWindow(
  deps: {
    readonly agent: AgentLoop;
    readonly ids: IdGenerator;
    readonly tools: TodoTools;
    /** The system prompt the turn's model reads (before the summary). */
    readonly systemPrompt: string;
  },
  loaded: TurnContext,
  message: string,
  run: Pick<AgentRunInput, 'context' | 'limits' | 'sampling' | 'budget'>,
  summarize: boolean,
): Promise<TurnWindow> {
  const { limits } = run;
  const turns = windowTurns(loaded.history, deps.tools);
  // A third of the window is left for the tools' definitions and the turn's own calls.
  const room = (summary: string | null) =>
    Math.floor((limits.contextTokens * 2) / 3) -
    estimatedFixedTokens(withSummary(deps.systemPrompt, summary), []) -
    estimatedTokens([{ role: 'user', content: message }]);
  let summary = loaded.summary;
  let newSummary: ConversationDigest | null = null;
  let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  let cost: Amount = 0n;
  let plan = planWindow(turns, room(summary?.content ?? null), limits.historyWindow);
  if (summarize && plan.toSummarize.length > 0) {
    const made = await deps.agent.complete(run, {
      systemPrompt: CONVERSATION_SUMMARY_PROMPT,
      text: transcriptToSummarize(summary?.content ?? null, plan.toSummarize, deps.tools),
      maxChars: SUMMARY_MAX_CHARS,
      maxTokens: Math.ceil(SUMMARY_MAX_CHARS / 2),
    });
    if (made) {
      usage = made.usage;
      cost = made.cost;
      newSummary = {
        id: deps.ids.next(),
        content: made.text,
        lastSeq: plan.toSummarize[plan.toSummarize.length - 1].lastSeq,
        messages: (summary?.messages ?? 0) + plan.toSummarize.reduce((sum, turn) => sum + turn.storedMessages, 0),
      };
      summary = newSummary;
      // The new summary may be longer than the old: the kept exchanges must still fit.
      plan = planWindow(plan.kept, room(summary.content), limits.historyWindow);
    }
  }
  const kept = plan.kept;
  const messages = kept.flatMap((turn) => turn.messages);
  return {
    messages,
    summary,
    newSummary,
    usage,
    cost,
    record: {
      summaryId: summary?.id ?? null,
      firstSeq: kept[0]?.firstSeq ?? null,
      lastSeq: kept[kept.length - 1]?.lastSeq ?? null,
      messages: kept.reduce((sum, turn) => sum + turn.storedMessages, 0),
      estimatedTokens: estimatedFixedTokens(withSummary(deps.systemPrompt, summary?.content ?? null), []) + estimatedTokens(messages),
    },
  };
}
