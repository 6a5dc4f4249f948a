import { completeJson, type JsonCheck } from '../../../src/application/agent/complete-json';
import { LanguageModelInvalidJsonError } from '../../../src/domain/agent/language-model-errors';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

const hasAction: JsonCheck<{ action: string }> = (value) => {
  const action = (value as { action?: unknown }).action;
  return typeof action === 'string' ? { ok: true, value: { action } } : { ok: false, problems: ['action is required'] };
};

const base = {
  systemPrompt: 'Answer in JSON.',
  messages: [{ role: 'user' as const, content: 'next?' }],
  signal: new AbortController().signal,
};

describe(completeJson.name, () => {
  it('asks in JSON mode without tools and returns the checked value', async () => {
    const model = new ScriptedLanguageModel();
    model.use(() => say('{"action":"wait"}'));
    await expect(completeJson(model, base, hasAction)).resolves.toMatchObject({ value: { action: 'wait' }, attempts: 1 });
    expect(model.requests[0]).toMatchObject({ tools: [], options: { jsonMode: true } });
  });

  it('re-asks once with the problems, and accepts a corrected answer', async () => {
    const model = new ScriptedLanguageModel();
    model.use((_, n) => say(n === 1 ? 'Sure! Here you go: {action: wait}' : '{"action":"wait"}'));
    await expect(completeJson(model, base, hasAction)).resolves.toMatchObject({ value: { action: 'wait' }, attempts: 2 });
    expect(model.requests[1].messages.at(-1)).toEqual({
      role: 'user',
      content: 'That answer was not accepted: the answer is not valid JSON. Answer again with exactly one JSON object and nothing else.',
    });
  });

  it('reports a second bad answer as a typed failure with the problems', async () => {
    const model = new ScriptedLanguageModel();
    model.use(() => say('{"reason":"no action"}'));
    const failure = await completeJson(model, base, hasAction).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LanguageModelInvalidJsonError);
    expect(failure).toMatchObject({ problems: ['action is required'] });
    expect(model.requests).toHaveLength(2);
  });
});
