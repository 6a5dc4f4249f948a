import { AdmitApiRequest } from '../../../src/application/policy/admit-api-request';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { apiRequestCalls } from '../../../src/domain/policy/api-request';
import type { PolicyRule } from '../../../src/domain/policy/policy';
import { InMemoryPolicyCounters, policyGate, policyOf } from '../../fakes/policy';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';

describe('a REST task request is decided as the tool calls it amounts to', () => {
  it.each([
    [{ completed: true }, ['complete_task']],
    [{ completed: false }, ['update_task']],
    [{ title: 'x' }, ['update_task']],
    [{ description: null }, ['update_task']],
    [{ priority: 'high', completed: true }, ['update_task', 'complete_task']],
    [{ title: 'x', completed: false }, ['update_task']],
  ])('a PATCH of %j is %j', (changes, tools) => {
    expect(apiRequestCalls({ route: 'change', changes }, TODO_TOOLS).map((call) => call.tool)).toEqual(tools);
  });

  it('names the tool of each other route, each touching one task', () => {
    expect(apiRequestCalls({ route: 'create' }, TODO_TOOLS)).toEqual([{ tool: 'add_task', targets: { items: 1, recipient: null } }]);
    expect(apiRequestCalls({ route: 'complete' }, TODO_TOOLS).map((call) => call.tool)).toEqual(['complete_task']);
    expect(apiRequestCalls({ route: 'delete' }, TODO_TOOLS).map((call) => call.tool)).toEqual(['delete_task']);
  });

  function admitting(rules: PolicyRule[]) {
    const audit = new RecordingAuditLog();
    const counters = new InMemoryPolicyCounters();
    const sut = new AdmitApiRequest(policyGate(policyOf(TODO_TOOLS, rules), { counters }), audit);
    return { sut, audit, counters };
  }

  it('refuses a PATCH that completes under a deny on complete_task, recording the tool refused and the request', async () => {
    const { sut, audit } = admitting([{ name: 'no-completing', tools: ['complete_task'], effect: 'deny', reason: 'Not here.' }]);
    await expect(
      sut.admit({ route: 'change', changes: { title: 'x', completed: true } }, { number: 4, title: 'x', completed: true }, 'u1'),
    ).rejects.toMatchObject({
      code: 'POLICY.DENIED',
      tool: 'complete_task',
    });
    expect(audit.rows.map((row) => [row.status, row.entry.tool, row.entry.arguments, row.entry.policy?.rule])).toEqual([
      ['rejected', 'complete_task', { number: 4, title: 'x', completed: true }, 'no-completing'],
    ]);
    await expect(sut.admit({ route: 'change', changes: { title: 'x' } }, { number: 4, title: 'x' }, 'u1')).resolves.toBeUndefined();
  });

  it('counts a request that is two calls on the limits of both, and nothing when a deny refuses one of them', async () => {
    const { sut, counters } = admitting([
      { name: 'change-cap', tools: ['*_task'], effect: 'limit', limit: { max: 3, per: 'person', window: 'day' } },
      { name: 'no-renames', tools: ['update_task'], people: ['33333333-3333-4333-8333-333333333333'], effect: 'deny', reason: 'No.' },
    ]);
    await expect(sut.admit({ route: 'change', changes: { title: 'x', completed: true } }, {}, 'u1')).resolves.toBeUndefined();
    expect([...counters.counts.values()]).toEqual([2]);
    await expect(
      sut.admit({ route: 'change', changes: { title: 'x', completed: true } }, {}, '33333333-3333-4333-8333-333333333333'),
    ).rejects.toMatchObject({ code: 'POLICY.DENIED' });
    expect([...counters.counts.values()]).toEqual([2]);
    // One more call fits under the cap of three; a request that is two does not, and counts nowhere.
    await expect(sut.admit({ route: 'change', changes: { title: 'y', completed: true } }, {}, 'u1')).rejects.toMatchObject({
      code: 'POLICY.LIMIT_REACHED',
    });
    expect([...counters.counts.values()]).toEqual([2]);
  });
});
