import { performance } from 'node:perf_hooks';
import { TODO_TOOLS } from '../src/application/todo/tools/todo-tool-definitions';
import { CompiledPolicy } from '../src/domain/policy/compiled-policy';
import { policyCatalogue } from '../src/domain/policy/default-policy';
import type { PolicyCall } from '../src/domain/policy/policy';
import { problemInWords, readPolicy } from '../src/domain/policy/policy-document';

const RULES = 200;
const ROUNDS = 200_000;

/**
 * 200 rules that all name delete_task (by name or glob), so the measured call walks every one
 * of them: per-person denials for other people, time windows the call is outside of,
 * recipient-domain and item-count conditions, and limits (which never end evaluation).
 */
function twoHundredRules(): unknown[] {
  return Array.from({ length: RULES }, (_, i) => {
    const name = `rule-${i}`;
    switch (i % 4) {
      case 0:
        return { name, tools: ['delete_task'], people: [`person${i}@example.com`], effect: 'deny', reason: `Rule ${i} says no.` };
      case 1:
        return { name, tools: ['*_task'], when: { hours: { from: '01:00', to: '02:00' } }, effect: 'deny', reason: 'Not now.' };
      case 2:
        return { name, tools: ['delete_*'], sources: ['chat', 'mcp'], when: { items: { over: 50 + i } }, effect: 'ask-person' };
      default:
        return { name, tools: ['*'], effect: 'limit', limit: { max: 1000 + i, per: i % 8 === 3 ? 'person' : 'everyone', window: 'day' } };
    }
  });
}

/**
 * Policy evaluation (the target: at most 0.05 ms a call with 200 rules): the time to read and
 * compile a 200-rule policy, done once per version, and the time per call, median of 5 runs of
 * 200 000 calls after a warm-up, for the worst case (a call every rule names, that none decides,
 * so all 200 are read and the 50 limits collected) and for a call of a tool no rule names but
 * the limits.
 */
export function benchPolicyEvaluation(): Promise<string> {
  const catalogue = policyCatalogue(TODO_TOOLS);
  let started = performance.now();
  const reading = readPolicy({ rules: twoHundredRules() }, catalogue);
  if (!reading.ok) throw new Error(reading.problems.slice(0, 3).map(problemInWords).join('\n'));
  const accounts = new Map(Array.from({ length: RULES }, (_, i) => [`person${i}@example.com`, `id-${i}`] as const));
  const policy = new CompiledPolicy(1, reading.document, catalogue, accounts);
  const compileMs = performance.now() - started;

  const at = new Date('2026-11-30T12:00:00Z');
  const worst: PolicyCall = { tool: 'delete_task', source: 'chat', userId: 'someone-else', targets: { items: 3, recipient: null }, at };
  const other: PolicyCall = { ...worst, tool: 'send_email', source: 'outreach', targets: { items: 1, recipient: 'a@example.org' } };
  const check = policy.evaluate(worst);
  if (check.effect !== 'allow' || check.limits.length !== RULES / 4) throw new Error(`unexpected decision ${JSON.stringify(check)}`);
  const perCall = (call: PolicyCall): number => {
    for (let i = 0; i < 20_000; i++) policy.evaluate(call);
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) {
      started = performance.now();
      for (let i = 0; i < ROUNDS; i++) policy.evaluate(call);
      runs.push(((performance.now() - started) * 1000) / ROUNDS);
    }
    return runs.sort((a, b) => a - b)[2];
  };
  const worstUs = perCall(worst);
  const otherUs = perCall(other);
  return Promise.resolve(
    `policy evaluation (${RULES} rules): read and compile ${compileMs.toFixed(1)} ms once per version; ` +
      `${worstUs.toFixed(2)} µs per call when all ${RULES} rules name the call's tool, ${otherUs.toFixed(2)} µs when only the ${RULES / 4} limits do ` +
      `(median of 5 × ${ROUNDS}; target 50 µs)`,
  );
}
