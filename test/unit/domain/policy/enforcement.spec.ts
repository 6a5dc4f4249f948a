import { type Enforcement, enforcement, type PolicyDoor } from '../../../../src/domain/policy/enforcement';
import type { PolicyDecision, PolicyLimit } from '../../../../src/domain/policy/policy';

const CAP: PolicyLimit = { rule: 'cap', position: 1, max: 2, window: 'day', windowMs: 86_400_000, key: 'k' };
const base = { version: 3, limits: [CAP], items: 1 };
const REVIEWER = { timeoutMinutes: 60, fallback: 'reject' } as const;

const DECISIONS: Record<PolicyDecision['effect'], PolicyDecision> = {
  allow: { effect: 'allow', rule: null, position: null, ...base },
  'ask-person': { effect: 'ask-person', rule: 'ask', position: 2, ...base },
  'ask-reviewer': { effect: 'ask-reviewer', rule: 'review', position: 2, reviewer: REVIEWER, ...base },
  deny: { effect: 'deny', rule: 'no', position: 2, reason: 'Not here.', ...base },
};

const PEOPLE: readonly PolicyDoor['person'][] = ['asks', 'previews', 'agreed', 'nobody'];
const REVIEWERS: readonly PolicyDoor['reviewer'][] = ['holds', 'agreed', 'nobody'];

/** What each effect comes to at a door, in short: the kind, and for a run whether it is a preview and of what. */
function said(enforced: Enforcement): string {
  switch (enforced.kind) {
    case 'run':
      return enforced.preview === null ? 'run' : `preview:${enforced.preview}`;
    case 'refuse':
      return `refuse:${enforced.refusal.code}:${enforced.refusal.details.rule}`;
    case 'ask-person':
      return `ask-person:${enforced.rule}`;
    case 'hold-for-reviewer':
      return `hold:${enforced.rule}`;
    default: {
      const unknown: never = enforced;
      return unknown;
    }
  }
}

describe(enforcement.name, () => {
  it('runs what is allowed at every door, as a preview where the call is the question, and refuses a deny everywhere', () => {
    for (const person of PEOPLE) {
      for (const reviewer of REVIEWERS) {
        const door = { person, reviewer };
        expect([door, said(enforcement(DECISIONS.allow, door))]).toEqual([door, person === 'previews' ? 'preview:runs' : 'run']);
        expect([door, said(enforcement(DECISIONS.deny, door))]).toEqual([door, 'refuse:POLICY_DENIED:no']);
      }
    }
  });

  it("asks the person where the door can ask, runs on their yes or as the question's preview, and refuses where nobody can be asked", () => {
    const byPerson = Object.fromEntries(
      PEOPLE.map((person) => [person, said(enforcement(DECISIONS['ask-person'], { person, reviewer: 'nobody' }))]),
    );
    expect(byPerson).toEqual({
      asks: 'ask-person:ask',
      previews: 'preview:asks',
      agreed: 'run',
      nobody: 'refuse:POLICY_DENIED:ask',
    });
  });

  it("holds for a reviewer where a review queue holds it, runs on the reviewer's yes, and refuses elsewhere", () => {
    const byReviewer = Object.fromEntries(
      REVIEWERS.map((reviewer) => [reviewer, said(enforcement(DECISIONS['ask-reviewer'], { person: 'nobody', reviewer }))]),
    );
    expect(byReviewer).toEqual({ holds: 'hold:review', agreed: 'run', nobody: 'refuse:POLICY_DENIED:review' });
    expect(enforcement(DECISIONS['ask-reviewer'], { person: 'nobody', reviewer: 'holds' })).toMatchObject({ reviewer: REVIEWER });
  });

  it("words a deny with the rule's reason, and an effect the door cannot carry out with the rule alone", () => {
    expect(enforcement(DECISIONS.deny, { person: 'agreed', reviewer: 'nobody' })).toEqual({
      kind: 'refuse',
      refusal: {
        code: 'POLICY_DENIED',
        message: "This is not allowed here: Not here. (Policy rule 'no'.)",
        details: { rule: 'no', version: 3, reason: 'Not here.' },
      },
    });
    expect(enforcement(DECISIONS['ask-reviewer'], { person: 'asks', reviewer: 'nobody' })).toEqual({
      kind: 'refuse',
      refusal: {
        code: 'POLICY_DENIED',
        message: "This is not allowed here (policy rule 'review').",
        details: { rule: 'review', version: 3 },
      },
    });
  });

  it('carries the limits as obligations wherever the call may run or be asked about, never on a refusal', () => {
    const obligations = { limits: [CAP] };
    expect(enforcement(DECISIONS.allow, { person: 'agreed', reviewer: 'nobody' })).toEqual({ kind: 'run', obligations, preview: null });
    expect(enforcement(DECISIONS['ask-person'], { person: 'asks', reviewer: 'nobody' })).toEqual({
      kind: 'ask-person',
      rule: 'ask',
      obligations,
    });
    expect(enforcement(DECISIONS['ask-reviewer'], { person: 'nobody', reviewer: 'holds' })).toMatchObject({ obligations });
    expect(enforcement(DECISIONS.deny, { person: 'agreed', reviewer: 'nobody' })).not.toHaveProperty('obligations');
  });
});
