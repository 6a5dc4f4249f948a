import { InvalidSamplingError, requestedSampling } from '../../../../src/domain/agent/limits';
import { intentOf, type JudgedCall, outcomeOf } from '../../../../src/domain/agent/turn-outcome';

const call = (tool: string, intent: JudgedCall['intent'], errorCode: string | null = null): JudgedCall => ({
  tool,
  intent,
  success: errorCode === null,
  errorCode,
});

const turn = (overrides: Partial<Parameters<typeof outcomeOf>[0]> = {}): Parameters<typeof outcomeOf>[0] => ({
  status: 'completed',
  finishReason: 'stop',
  decisionType: 'INVOKE_TOOL',
  failure: null,
  calls: [],
  ...overrides,
});

describe(intentOf.name, () => {
  it.each([
    ['no tool', [], 'NONE'],
    ['a tool the assistant does not have', [null], 'NONE'],
    ['a look at the list', ['READ', 'READ'], 'READ'],
    ['a list on the way to a completion', ['READ', 'COMPLETE', 'COMPLETE'], 'COMPLETE'],
    ['a deletion asked about', ['DELETE'], 'DELETE'],
    ['a bulk change', ['COMPLETE', 'BULK'], 'BULK'],
    ['changes of two kinds', ['CREATE', 'COMPLETE'], 'BULK'],
  ] as const)('%s is %s', (_, intents, expected) => {
    expect(intentOf(intents)).toBe(expected);
  });
});

describe(outcomeOf.name, () => {
  it.each([
    ['an answer without tools', 'SUCCEEDED', turn({ decisionType: 'RESPOND_ONLY' })],
    ['a change that ran', 'SUCCEEDED', turn({ calls: [call('add_task', 'CREATE')] })],
    [
      'a call the model corrected',
      'SUCCEEDED',
      turn({ calls: [call('add_task', 'CREATE', 'INVALID_ARGUMENTS'), call('add_task', 'CREATE')] }),
    ],
    [
      'a task that is not there',
      'FAILED',
      turn({ calls: [call('list_tasks', 'READ'), call('complete_task', 'COMPLETE', 'TASK_NOT_FOUND')] }),
    ],
    ['one change of two', 'PARTIAL', turn({ calls: [call('add_task', 'CREATE'), call('complete_task', 'COMPLETE', 'TASK_NOT_FOUND')] })],
    ['a limit reached', 'PARTIAL', turn({ status: 'max_iterations_reached', finishReason: 'max_tool_calls' })],
    ['a question', 'ASKED', turn({ decisionType: 'ASK_CLARIFICATION', calls: [call('complete_task', 'COMPLETE', 'AMBIGUOUS_TASK')] })],
    ['a confirmation asked', 'ASKED', turn({ decisionType: 'REQUEST_CONFIRMATION', finishReason: 'confirmation_required' })],
    ['a call not allowed', 'REFUSED', turn({ calls: [call('delete_task', 'DELETE', 'CONFIRMATION_STALE')] })],
    ['the day’s budget spent', 'REFUSED', turn({ status: 'error', finishReason: 'budget_spent', failure: 'BUDGET_SPENT' })],
    ['a content filter', 'REFUSED', turn({ finishReason: 'content_filter', decisionType: 'RESPOND_ONLY' })],
    ['a provider down', 'FAILED', turn({ status: 'error', finishReason: 'error', failure: 'PROVIDER_UNAVAILABLE' })],
  ] as const)('%s is %s', (_, expected, input) => {
    expect(outcomeOf(input)).toBe(expected);
  });
});

describe(requestedSampling.name, () => {
  const server = { temperature: 0, maxTokens: 1024 };

  it("takes the request's own values within bounds, and the server's for the rest", () => {
    expect(requestedSampling(server, {})).toEqual(server);
    expect(requestedSampling(server, { temperature: 2, maxTokens: 1 })).toEqual({ temperature: 2, maxTokens: 1 });
    expect(requestedSampling(server, { temperature: 0.7 })).toEqual({ temperature: 0.7, maxTokens: 1024 });
  });

  it.each([
    [{ temperature: -0.1 }, 'temperature', 'temperature must be a number from 0 to 2'],
    [{ temperature: 2.01 }, 'temperature', 'temperature must be a number from 0 to 2'],
    [{ temperature: Number.NaN }, 'temperature', 'temperature must be a number from 0 to 2'],
    [{ maxTokens: 0 }, 'maxTokens', 'maxTokens must be a whole number from 1 to 1024'],
    [{ maxTokens: 1025 }, 'maxTokens', 'maxTokens must be a whole number from 1 to 1024'],
    [{ maxTokens: 1.5 }, 'maxTokens', 'maxTokens must be a whole number from 1 to 1024'],
  ])('refuses %j, naming %s', (requested, field, message) => {
    const refused = (() => {
      try {
        return requestedSampling(server, requested);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(InvalidSamplingError);
    expect(refused).toMatchObject({ field, message, code: 'CHAT.INVALID_SAMPLING' });
  });
});
