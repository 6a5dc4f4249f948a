import { AgentLoop, type AgentRunInput } from '../../../src/application/agent/agent-loop';
import {
  AuditLog,
  type ToolAuditEntry,
  type ToolAuditOutcome,
} from '../../../src/application/agent/ports/audit-log.port';
import { type ToolCallContext, ToolGateway, type ToolResult } from '../../../src/application/agent/ports/tool-gateway.port';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { DEFAULT_AGENT_LIMITS } from '../../../src/domain/agent/limits';
import type { ToolArguments } from '../../../src/domain/agent/tool-call-validation';
import { FixedClock } from '../../fakes/fixed-clock';
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

class RecordingAudit extends AuditLog {
  readonly rows: { entry: ToolAuditEntry; outcome?: ToolAuditOutcome }[] = [];
  recordPending(entry: ToolAuditEntry) {
    this.rows.push({ entry });
    return Promise.resolve(this.rows.length);
  }
  recordOutcome(_: number, entry: ToolAuditEntry, outcome: ToolAuditOutcome) {
    this.rows.push({ entry, outcome });
    return Promise.resolve();
  }
  record(entry: ToolAuditEntry, outcome: ToolAuditOutcome) {
    this.rows.push({ entry, outcome });
    return Promise.resolve();
  }
}

const input = (limits = {}): AgentRunInput => ({
  systemPrompt: 'test',
  messages: [{ role: 'user', content: 'go' }],
  context: { userId: 'u1', source: 'chat', conversationId: 'c1', decisionId: 'd1' },
  limits: { ...DEFAULT_AGENT_LIMITS, ...limits },
});

function setup(behave: ConstructorParameters<typeof FakeGateway>[0]) {
  const model = new ScriptedLanguageModel();
  const gateway = new FakeGateway(behave);
  const audit = new RecordingAudit();
  return { model, gateway, audit, sut: new AgentLoop(model, gateway, audit, new FixedClock()) };
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
        context.dryRun
          ? { ok: true, data: { prompt: 'Really delete?', arguments: { numbers: [4] }, preview: { wouldDelete: [] } } }
          : { ok: true, data: {} },
      ),
    );
    model.use(() => callTool('delete_task', { query: 'dentist' }));
    const result = await sut.run(input());
    expect(gateway.calls.map((c) => c.context.dryRun)).toEqual([true]);
    expect(result).toMatchObject({
      text: 'Really delete?',
      decisionType: 'REQUEST_CONFIRMATION',
      confirmation: { tool: 'delete_task', arguments: { numbers: [4] }, prompt: 'Really delete?' },
    });
    expect(result.toolCalls[0]).toMatchObject({ success: false, error: { code: 'CONFIRMATION_REQUIRED' } });
  });

  it('audits calls it refuses itself, passing identity attempts to the gateway for the rest', async () => {
    const { sut, model, audit, gateway } = setup(() => Promise.resolve({ ok: true, data: {} }));
    model.use((req, n) =>
      n === 1
        ? { ...callTool('nope', {}), toolCalls: [{ id: 'a', name: 'nope', arguments: '{}' }, { id: 'b', name: 'list_tasks', arguments: '{"user_id":"u2"}' }] }
        : say('ok'),
    );
    await sut.run(input());
    expect(audit.rows).toEqual([
      {
        entry: expect.objectContaining({ tool: 'nope', actorId: 'u1', decisionId: 'd1', arguments: '{}' }),
        outcome: expect.objectContaining({ status: 'rejected', errorCode: 'UNKNOWN_TOOL' }),
      },
    ]);
    expect(gateway.calls[0]).toMatchObject({
      args: {},
      context: { userId: 'u1', securityEvents: [{ type: 'IDENTITY_ARGUMENT_DISCARDED', field: 'user_id' }] },
    });
  });
});
