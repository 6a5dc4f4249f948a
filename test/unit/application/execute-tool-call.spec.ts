import { ExecuteToolCallUseCase } from '../../../src/application/agent/execute-tool-call.use-case';
import {
  AuditLog,
  type ToolAuditEntry,
  type ToolAuditOutcome,
} from '../../../src/application/agent/ports/audit-log.port';
import type { ToolResult } from '../../../src/application/agent/ports/tool-gateway.port';
import { Toolbox } from '../../../src/application/agent/ports/toolbox.port';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingMetrics } from '../../fakes/recording-metrics';

class AuditRows extends AuditLog {
  readonly rows: { seq: number; status: string; pendingSeq?: number; entry: ToolAuditEntry; outcome?: ToolAuditOutcome }[] = [];
  recordPending(entry: ToolAuditEntry) {
    const seq = this.rows.length + 1;
    this.rows.push({ seq, status: 'pending', entry });
    return Promise.resolve(seq);
  }
  recordOutcome(pendingSeq: number, entry: ToolAuditEntry, outcome: ToolAuditOutcome) {
    this.rows.push({ seq: this.rows.length + 1, status: outcome.status, pendingSeq, entry, outcome });
    return Promise.resolve();
  }
  record(entry: ToolAuditEntry, outcome: ToolAuditOutcome) {
    this.rows.push({ seq: this.rows.length + 1, status: outcome.status, entry, outcome });
    return Promise.resolve();
  }
}

class StubToolbox extends Toolbox {
  readonly definitions = TODO_TOOLS;
  readonly runs: { tool: string; dryRun: boolean; auditedBefore: number }[] = [];
  constructor(
    private readonly audit: AuditRows,
    private readonly answer: () => Promise<ToolResult>,
  ) {
    super();
  }
  run(tool: string, _: unknown, __: string, options: { dryRun: boolean }) {
    this.runs.push({ tool, dryRun: options.dryRun, auditedBefore: this.audit.rows.length });
    return this.answer();
  }
}

function setup(answer: () => Promise<ToolResult> = () => Promise.resolve({ ok: true, data: { task: {} } })) {
  const audit = new AuditRows();
  const toolbox = new StubToolbox(audit, answer);
  const metrics = new RecordingMetrics();
  return { audit, toolbox, metrics, sut: new ExecuteToolCallUseCase(toolbox, audit, new FixedClock(), metrics) };
}

const context = { userId: 'u1', source: 'mcp' as const };

describe(ExecuteToolCallUseCase.name, () => {
  it('commits a pending row before a mutating tool runs, then an outcome row pointing at it', async () => {
    const { sut, audit, toolbox } = setup();
    await sut.execute({ tool: 'add_task', arguments: { title: 'x' }, context });
    expect(toolbox.runs).toEqual([{ tool: 'add_task', dryRun: false, auditedBefore: 1 }]);
    expect(audit.rows.map((r) => [r.seq, r.status, r.pendingSeq])).toEqual([
      [1, 'pending', undefined],
      [2, 'succeeded', 1],
    ]);
  });

  it('writes one row for a read, and for a dry run', async () => {
    const { sut, audit } = setup();
    await sut.execute({ tool: 'list_tasks', arguments: {}, context });
    await sut.execute({ tool: 'delete_task', arguments: { number: 1 }, context: { ...context, dryRun: true } });
    expect(audit.rows.map((r) => r.status)).toEqual(['succeeded', 'confirmation_requested']);
  });

  it('refuses unknown tools and invalid arguments without running anything', async () => {
    const { sut, audit, toolbox } = setup();
    await expect(sut.execute({ tool: 'nope', arguments: {}, context })).resolves.toMatchObject({ ok: false, code: 'UNKNOWN_TOOL' });
    await expect(sut.execute({ tool: 'add_task', arguments: { title: 1, user_id: 'u2' }, context })).resolves.toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
    });
    expect(toolbox.runs).toEqual([]);
    expect(audit.rows.map((r) => [r.status, r.outcome?.errorCode, r.entry.securityEvents.length])).toEqual([
      ['rejected', 'UNKNOWN_TOOL', 0],
      ['rejected', 'INVALID_ARGUMENTS', 1],
    ]);
  });

  it('records a tool error with its failure class', async () => {
    const { sut, audit } = setup(() => Promise.resolve({ ok: false, code: 'TASK_NOT_FOUND', message: 'no', details: { number: 4 } }));
    await sut.execute({ tool: 'complete_task', arguments: { number: 4 }, context });
    expect(audit.rows[1]).toMatchObject({ status: 'failed', outcome: { errorCode: 'TASK_NOT_FOUND', result: { number: 4 } } });
  });

  it('records a crash as failed, then lets it propagate', async () => {
    const { sut, audit } = setup(() => Promise.reject(new TypeError('bug')));
    await expect(sut.execute({ tool: 'add_task', arguments: { title: 'x' }, context })).rejects.toThrow(TypeError);
    expect(audit.rows.map((r) => [r.status, r.outcome?.errorCode])).toEqual([
      ['pending', undefined],
      ['failed', 'INTERNAL'],
    ]);
  });
});
