import fc, { type Arbitrary } from 'fast-check';
import type { CycleContext } from '../../../src/domain/outreach/planning';
import { CONTRACT } from './proposal-contract';
import { answerText, anyJson, ARG_NAMES, mutation, onObject } from './proposal-mutations';
import { validProposal } from './valid-proposals';

/**
 * Generated planner answers for the outreach validator (docs/guarantees.md): valid, mutated
 * and arbitrary texts. With the cycles and valid proposals (valid-proposals.ts) and the
 * oracle that restates the action contract on its own (proposal-contract.ts).
 */

export { contractAccepts, contractAcceptsText } from './proposal-contract';
export { CAMPAIGN, LEAD, SECRET_NAMES, taskContext, validProposal, WRAP_UP } from './valid-proposals';

export type ProposalSource = 'valid' | 'mutated' | 'arbitrary';

/** Arbitrary JSON, and objects shaped enough to get past the first checks. */
const arbitraryAnswer: Arbitrary<unknown> = fc.oneof(
  anyJson,
  fc.record(
    {
      action: fc.oneof(fc.constantFrom(...CONTRACT.actions), fc.string({ maxLength: 30 })),
      args: fc.oneof(anyJson, fc.dictionary(fc.constantFrom(...ARG_NAMES), anyJson, { maxKeys: 4 })),
      reason: fc.oneof(fc.string({ maxLength: 220 }), anyJson),
    },
    { requiredKeys: [] },
  ),
);

/**
 * Answer texts for `context`: valid proposals, valid proposals with one to three mutations
 * (some of which happen to stay valid), and arbitrary JSON. Every text parses as JSON;
 * `raw` adds texts that do not.
 */
export function proposalAnswer(context: CycleContext): Arbitrary<{ source: ProposalSource; text: string }> {
  const valid = validProposal(context);
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((value) => ({ source: 'valid' as const, text: answerText(value) })) },
    {
      weight: 8,
      arbitrary: fc.tuple(valid, fc.array(mutation(context), { minLength: 1, maxLength: 3 })).map(([value, mutations]) => ({
        source: 'mutated' as const,
        text: answerText(mutations.reduce<unknown>((current, mutate) => onObject(mutate)(current), value)),
      })),
    },
    { weight: 1, arbitrary: valid.map((value) => ({ source: 'mutated' as const, text: withDuplicateKey(answerText(value)) })) },
    { weight: 2, arbitrary: arbitraryAnswer.map((value) => ({ source: 'arbitrary' as const, text: answerText(value) })) },
  );
}

/** A repeated key: JSON.parse keeps the last one, and so must the check. */
function withDuplicateKey(json: string): string {
  return `{"action":"send_email","args":{"to":"john@acme.example","subject":"Hi","body":"Hi"},${json.slice(1)}`;
}

/** What a model may send besides JSON: prose around it, fences, two objects, cut-off text, nothing. */
export function rawAnswer(context: CycleContext): Arbitrary<string | null> {
  const json = proposalAnswer(context).map(({ text }) => text);
  return fc.oneof(
    json.map((t) => `Sure! Here is the next action: ${t}`),
    json.map((t) => `\`\`\`json\n${t}\n\`\`\``),
    fc.tuple(json, json).map(([a, b]) => `${a}${b}`),
    fc.tuple(json, json).map(([a, b]) => `${a}\n${b}`),
    json.map((t) => t.slice(0, -1)),
    fc.constantFrom('', 'null', '[]', '{}', 'NaN', 'undefined', '{"action": wait_cooldown}'),
    fc.string({ maxLength: 40 }),
    fc.constant(null),
  );
}
