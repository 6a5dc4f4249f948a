import { LanguageModelInvalidJsonError } from '../../domain/agent/language-model-errors';
import type { AgentMessage } from '../../domain/agent/tools';
import type { CompletionRequest, LanguageModel, TokenUsage } from './ports/language-model.port';

/** Problems with a parsed answer, each naming its field; empty when it is acceptable. */
export type JsonCheck<T> = (
  value: unknown,
) => { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: string[] };

/**
 * Asks for exactly one JSON object. An answer that is not one, or that `check` refuses,
 * is re-asked once with the problems spelled out; a second bad answer is a typed failure.
 */
export async function completeJson<T>(
  model: LanguageModel,
  request: Omit<CompletionRequest, 'tools'>,
  check: JsonCheck<T>,
  /** Told of every refused answer (the text, and why), e.g. to audit it. */
  onRefused?: (text: string | null, problems: readonly string[]) => void,
): Promise<{ value: T; usage: TokenUsage; attempts: number }> {
  let messages: readonly AgentMessage[] = request.messages;
  let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  for (let attempt = 1; ; attempt++) {
    const completion = await model.complete({
      ...request,
      messages,
      tools: [],
      options: { ...request.options, jsonMode: true },
    });
    usage = {
      promptTokens: usage.promptTokens + completion.usage.promptTokens,
      completionTokens: usage.completionTokens + completion.usage.completionTokens,
    };
    const problems = problemsOf(completion.text, check);
    if (problems.ok) return { value: problems.value, usage, attempts: attempt };
    onRefused?.(completion.text, problems.problems);
    if (attempt === 2) {
      throw new LanguageModelInvalidJsonError('The model did not answer with one valid JSON object', problems.problems);
    }
    messages = [
      ...messages,
      { role: 'assistant', content: completion.text ?? '' },
      {
        role: 'user',
        content: `That answer was not accepted: ${problems.problems.join('; ')}. Answer again with exactly one JSON object and nothing else.`,
      },
    ];
  }
}

function problemsOf<T>(text: string | null, check: JsonCheck<T>): ReturnType<JsonCheck<T>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    return { ok: false, problems: ['the answer is not valid JSON'] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, problems: ['the answer must be one JSON object'] };
  }
  return check(parsed);
}
