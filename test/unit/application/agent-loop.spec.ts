import { AgentLoop, type AgentRunInput } from '../../../src/application/agent/agent-loop';
import { type ToolCallContext, ToolGateway, type ToolResult } from '../../../src/application/agent/ports/tool-gateway.port';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { TODO_WORDS } from '../../../src/application/todo/todo-words';
import { DEFAULT_AGENT_LIMITS, DEFAULT_SAMPLING } from '../../../src/domain/agent/limits';
import type { ToolArguments } from '../../../src/domain/agent/tool-call-validation';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingLogger } from '../../fakes/recording-logger';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import type { Completion } from '../../../src/application/agent/ports/language-model.port';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

class FakeGateway extends ToolGateway {
  readonly calls: { name: string; args: ToolArguments; context: ToolCallContext }[] = [];
  constructor(private readonly behave: (name: string, context: ToolCallContext, signal?: AbortSignal) => Promise<ToolResult>) {
    super();
  }
  listTools() {
    return Promise.resolve(TODO_TOOLS);
  }
  invoke(name: string, args: ToolArguments, context: ToolCallContext, signal?: AbortSignal) {
    this.calls.push({ name, args, context });
    return this.behave(name, context, signal);
  }
}

const input = (limits = {}): AgentRunInput => ({
  systemPrompt: 'test',
  messages: [{ role: 'user', content: 'go' }],
  context: { userId: 'u1', source: 'chat', conversationId: 'c1', decisionId: 'd1' },
  limits: { ...DEFAULT_AGENT_LIMITS, ...limits },
  sampling: DEFAULT_SAMPLING,
  words: TODO_WORDS,
});

function setup(behave: ConstructorParameters<typeof FakeGateway>[0]) {
  const model = new ScriptedLanguageModel();
  const gateway = new FakeGateway(behave);
  return { model, gateway, sut: new AgentLoop(model, gateway, new FixedClock(), new RecordingLogger(), new AjvSchemaValidator()) };
}

describe(AgentLoop.name, () => {
  it('gives up on a tool that does not answer within the tool timeout and tells the model', async () => {
    const { sut, model } = setup(
      (_, __, signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    model.use((req) => (answeringToolResult(req) ? say('It timed out.') : callTool('list_tasks', {})));
    const result = await sut.run(input({ toolTimeoutMs: 50 }));
    expect(result.toolCalls).toEqual([expect.objectContaining({ success: false, error: expect.objectContaining({ code: 'TIMEOUT' }) })]);
    expect(result).toMatchObject({ status: 'completed', text: 'It timed out.' });
  });

  it('turns a broken gateway into a tool error, not a crash', async () => {
    const { sut, model } = setup(() => Promise.reject(new Error('transport closed')));
    model.use((req) => (answeringToolResult(req) ? say('Could not.') : callTool('list_tasks', {})));
    const result = await sut.run(input());
    expect(result.toolCalls[0]).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
  });

  it('asks for confirmation from a dry run and never runs the destructive call', async () => {
    const { sut, model, gateway } = setup((_, context) =>
      Promise.resolve(
        context.mode.kind === 'dry-run'
          ? { ok: true, data: { prompt: 'Really delete?', arguments: { numbers: [4] }, preview: { wouldDelete: [] } } }
          : { ok: true, data: {} },
      ),
    );
    model.use(() => callTool('delete_task', { query: 'dentist' }));
    const result = await sut.run(input());
    expect(gateway.calls.map((c) => c.context.mode)).toEqual([{ kind: 'dry-run' }]);
    expect(result).toMatchObject({
      text: 'Really delete?',
      decisionType: 'REQUEST_CONFIRMATION',
      confirmation: { tool: 'delete_task', arguments: { numbers: [4] }, prompt: 'Really delete?' },
    });
    expect(result.toolCalls[0]).toMatchObject({ success: false, error: { code: 'CONFIRMATION_REQUIRED' } });
  });

  it("runs a destructive call the server's dry run says the policy lets run, asking nobody", async () => {
    const { sut, model, gateway } = setup((_, context) =>
      Promise.resolve(
        context.mode.kind === 'dry-run'
          ? { ok: true, data: { prompt: 'Really delete?', arguments: { numbers: [4] }, preview: {}, asksThePerson: false } }
          : { ok: true, data: { deleted: [{ number: 4 }] } },
      ),
    );
    model.use((req) => (answeringToolResult(req) ? say('Deleted.') : callTool('delete_task', { number: 4 })));
    const result = await sut.run(input());
    expect(gateway.calls.map((c) => c.context.mode)).toEqual([{ kind: 'dry-run' }, { kind: 'run' }]);
    expect(result).toMatchObject({ text: 'Deleted.', confirmation: null, decisionType: 'INVOKE_TOOL' });
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ tool: 'delete_task', success: true, result: { deleted: [{ number: 4 }] } }),
    ]);
  });

  it('runs a confirmed call as confirmed, and when it finds things changed since, answers with its new question', async () => {
    const askAgain = {
      prompt: 'Since I asked… Do you really want to delete A?',
      arguments: { tasks: [{ number: 1, title: 'A' }] },
      preview: {},
    };
    const { sut, model, gateway } = setup(() =>
      Promise.resolve({ ok: false, code: 'CONFIRMATION_STALE', message: askAgain.prompt, details: { gone: [], renamed: [], askAgain } }),
    );
    model.use(() => say('never asked'));
    const action = {
      id: 'p1',
      userId: 'u1',
      conversationId: 'c1',
      tool: 'delete_task',
      arguments: {
        tasks: [
          { number: 1, title: 'A' },
          { number: 2, title: 'B' },
        ],
      },
      prompt: 'Really?',
      expiresAt: new Date(),
    };
    const result = await sut.runConfirmed(input(), action);
    expect(gateway.calls).toEqual([
      { name: 'delete_task', args: action.arguments, context: expect.objectContaining({ mode: { kind: 'confirmed' } }) },
    ]);
    expect(model.requests).toHaveLength(0);
    expect(result).toMatchObject({
      text: askAgain.prompt,
      status: 'completed',
      decisionType: 'REQUEST_CONFIRMATION',
      confirmation: { tool: 'delete_task', arguments: askAgain.arguments, prompt: askAgain.prompt },
    });
    expect(result.toolCalls[0]).toMatchObject({ success: false, error: { code: 'CONFIRMATION_STALE' } });
  });

  describe('bulk changes', () => {
    const calls = (...numbers: number[]): Completion => ({
      text: null,
      toolCalls: numbers.map((number) => ({ id: `c${number}`, name: 'complete_task', arguments: JSON.stringify({ number }) })),
      usage: { promptTokens: 1, completionTokens: 1 },
      finishReason: 'tool_calls',
    });

    it('runs up to 3 changes in a turn without asking', async () => {
      const { sut, model, gateway } = setup(() => Promise.resolve({ ok: true, data: {} }));
      model.use((req) => (answeringToolResult(req) ? say('Done.') : calls(1, 2, 3)));
      const result = await sut.run(input());
      expect(gateway.calls.map((call) => call.args)).toEqual([{ number: 1 }, { number: 2 }, { number: 3 }]);
      expect(result).toMatchObject({ text: 'Done.', confirmation: null });
    });

    it('asks before a turn that would complete or update more than 3 tasks, and runs none of them', async () => {
      const { sut, model, gateway } = setup(() => Promise.resolve({ ok: true, data: {} }));
      model.use(() => ({
        ...calls(1, 2, 3),
        toolCalls: [...calls(1, 2, 3).toolCalls, { id: 'u', name: 'update_task', arguments: '{"query":"rent","priority":"high"}' }],
      }));
      const result = await sut.run(input());
      expect(gateway.calls).toEqual([]);
      const prompt = "That's a big action: complete task 1, complete task 2, complete task 3 and update 'rent'. Confirm with 'yes'.";
      expect(result).toMatchObject({
        text: prompt,
        decisionType: 'REQUEST_CONFIRMATION',
        confirmation: {
          tool: 'bulk_change',
          prompt,
          arguments: {
            calls: [
              { tool: 'complete_task', arguments: { number: 1 } },
              { tool: 'complete_task', arguments: { number: 2 } },
              { tool: 'complete_task', arguments: { number: 3 } },
              { tool: 'update_task', arguments: { query: 'rent', priority: 'high' } },
            ],
          },
        },
      });
      expect(result.toolCalls.map((record) => record.error?.code)).toEqual(Array(4).fill('CONFIRMATION_REQUIRED'));
    });

    it('counts the changes of every batch in the turn', async () => {
      const { sut, model, gateway } = setup(() => Promise.resolve({ ok: true, data: {} }));
      model.use((_, n) => (n === 1 ? calls(1, 2) : calls(3, 4)));
      const result = await sut.run(input());
      expect(gateway.calls.map((call) => call.args)).toEqual([{ number: 1 }, { number: 2 }]);
      expect(result.confirmation).toMatchObject({
        tool: 'bulk_change',
        arguments: { calls: [{ arguments: { number: 3 } }, { arguments: { number: 4 } }] },
      });
    });

    it('on yes runs each stored call once, as an ordinary change, and lets the model word the outcome', async () => {
      const { sut, model, gateway } = setup((name) => Promise.resolve({ ok: true, data: { task: { name } } }));
      model.use((req) => say(`Done: ${req.messages.filter((m) => m.role === 'tool').length} changes.`));
      const stored = [1, 2, 3, 4].map((number) => ({ tool: 'complete_task', arguments: { number } }));
      const action = {
        id: 'p1',
        userId: 'u1',
        conversationId: 'c1',
        tool: 'bulk_change',
        arguments: { calls: stored },
        prompt: 'big',
        expiresAt: new Date(),
      };
      const result = await sut.runConfirmed(input(), action);
      expect(gateway.calls.map((call) => [call.name, call.args, call.context.mode])).toEqual(
        stored.map((call) => [call.tool, call.arguments, { kind: 'run' }]),
      );
      expect(result).toMatchObject({ text: 'Done: 4 changes.', decisionType: 'INVOKE_TOOL', confirmation: null });
      expect(result.toolCalls).toHaveLength(4);
    });
  });

  it('sends every call to the gateway, a call it cannot send as written as a refusal for the tool server to record', async () => {
    const { sut, model, gateway } = setup(() => Promise.resolve({ ok: true, data: {} }));
    model.use((req, n) =>
      n === 1
        ? {
            ...callTool('nope', {}),
            toolCalls: [
              { id: 'a', name: 'nope', arguments: '{"x":1}' },
              { id: 'b', name: 'add_task', arguments: '{"title": "Fix' },
              { id: 'c', name: 'list_tasks', arguments: '{"user_id":"u2"}' },
            ],
          }
        : say('ok'),
    );
    const result = await sut.run(input());
    expect(gateway.calls).toEqual([
      {
        name: 'nope',
        args: { x: 1 },
        context: expect.objectContaining({
          userId: 'u1',
          decisionId: 'd1',
          mode: { kind: 'refused', refusal: expect.objectContaining({ code: 'UNKNOWN_TOOL', arguments: { x: 1 } }) },
        }),
      },
      {
        name: 'add_task',
        args: {},
        context: expect.objectContaining({
          mode: { kind: 'refused', refusal: expect.objectContaining({ code: 'MALFORMED_ARGUMENTS', arguments: '{"title": "Fix' }) },
        }),
      },
      // Identity fields are the tool server's to strip and record, as for any caller.
      { name: 'list_tasks', args: { user_id: 'u2' }, context: expect.objectContaining({ mode: { kind: 'run' } }) },
    ]);
    expect(result.toolCalls.map((call) => call.tool)).toEqual(['nope', 'add_task', 'list_tasks']);
  });
});
