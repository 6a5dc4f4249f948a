import fc from 'fast-check';
import { checkProposal } from '../../../src/domain/outreach/actions';
import { fitProblems, type CycleContext } from '../../../src/domain/outreach/planning';
import { emailKey } from '../../../src/domain/shared/email-address';
import { contractAccepts, LEAD, proposalAnswer, taskContext, WRAP_UP, type ProposalSource } from '../../fakes/outreach/proposals';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';

const schemas = new AjvSchemaValidator();

/** The cycles proposals are checked in; the do-not-contact ones list the lead's own URL or email. */
const CONTEXTS: readonly CycleContext[] = [
  taskContext('ScrapeProfile'),
  taskContext('SendLinkedInMessage'),
  taskContext('SendEmail'),
  taskContext('ScrapeProfile', [LEAD.linkedinUrl]),
  taskContext('SendLinkedInMessage', [LEAD.linkedinUrl, LEAD.email]),
  taskContext('SendEmail', [LEAD.email]),
  WRAP_UP,
];

/** What the controller does with a parsed answer before acting: the contract, then the fit with the cycle. */
function validate(value: unknown, context: CycleContext) {
  const checked = checkProposal(value, schemas);
  if (!checked.ok) return checked;
  const problems = fitProblems(checked.value, context);
  return problems.length ? { ok: false as const, problems } : checked;
}

describe(`${checkProposal.name} and ${fitProblems.name}`, () => {
  it('accept exactly the proposals the contract allows, over 10 000 generated answers', () => {
    const seen: Record<ProposalSource, { accepted: number; refused: number }> = {
      valid: { accepted: 0, refused: 0 },
      mutated: { accepted: 0, refused: 0 },
      arbitrary: { accepted: 0, refused: 0 },
    };
    const cases = fc.oneof(...CONTEXTS.map((context) => proposalAnswer(context).map((answer) => ({ context, ...answer }))));

    fc.assert(
      fc.property(cases, ({ context, source, text }) => {
        const value: unknown = JSON.parse(text);
        const result = validate(value, context);
        const allowed = contractAccepts(value, context);
        if (source === 'valid' && (context.kind === 'wrap_up' || context.doNotContact.length === 0)) expect(allowed).toBe(true);

        expect(result.ok).toBe(allowed);
        seen[source][result.ok ? 'accepted' : 'refused']++;
        if (!result.ok) {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const problem of result.problems) expect(problem).toMatch(/\S/);
          return;
        }
        const { args } = result.value as { args: Record<string, unknown> };
        // An email is compared by its key: the model may write the local part in another case.
        const targets = [args.profileUrl, args.to === undefined ? undefined : emailKey(args.to)].filter((target) => target !== undefined);
        for (const target of targets) {
          expect([LEAD.linkedinUrl, emailKey(LEAD.email)]).toContain(target);
          if (context.kind === 'task') expect(context.doNotContact).not.toContain(target);
        }
      }),
      { numRuns: 10_000 },
    );

    const total = (kind: 'accepted' | 'refused') => seen.valid[kind] + seen.mutated[kind] + seen.arbitrary[kind];
    expect(total('accepted') + total('refused')).toBe(10_000);
    // The mix is meant to exercise both answers: a generator that only made refusals would prove nothing.
    expect(total('accepted')).toBeGreaterThan(1_000);
    expect(seen.mutated.refused).toBeGreaterThan(4_000);
    expect(seen.arbitrary.refused).toBeGreaterThan(1_000);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('refuses an extra argument named %s', (name) => {
    const args = JSON.parse(`{"profileUrl":"${LEAD.linkedinUrl}","fields":["name"],"${name}":{"action":"send_email"}}`);
    const result = validate(
      { action: 'linkedin_scrape_profile', args, reason: 'Look the lead up before writing.' },
      taskContext('ScrapeProfile'),
    );
    expect(result).toEqual({ ok: false, problems: [`args.${name} is not an accepted argument`] });
  });

  it("refuses a campaignId that is not a UUID: a format in an action's contract is checked, not skipped", () => {
    const reason = 'Every task of the campaign is finished.';
    expect(checkProposal({ action: 'complete_campaign', args: { campaignId: 'q4-founders' }, reason }, schemas)).toEqual({
      ok: false,
      problems: ['args.campaignId must be a UUID'],
    });
    expect(checkProposal({ action: 'complete_campaign', args: { campaignId: WRAP_UP.campaign.id }, reason }, schemas)).toMatchObject({
      ok: true,
    });
  });

  it.each([
    [
      'linkedin_scrape_profile',
      { profileUrl: LEAD.linkedinUrl, fields: ['password'] },
      'args.fields[0] must be one of "name", "headline", "title", "company", "location", "email"',
    ],
    ['linkedin_scrape_profile', { profileUrl: LEAD.linkedinUrl, fields: [] }, 'args.fields must have at least 1 items'],
    [
      'linkedin_send_message',
      { profileUrl: LEAD.linkedinUrl, message: 'm'.repeat(1901) },
      'args.message must be at most 1900 characters long',
    ],
    ['send_email', { to: LEAD.email, subject: 'Hi' }, 'args.body is required'],
    ['wait_cooldown', { durationHours: 169 }, 'args.durationHours must be at most 168'],
    ['wait_cooldown', { durationHours: '5' }, 'args.durationHours must be a number'],
    ['refresh_session', { secretName: '' }, 'args.secretName must be at least 1 characters long'],
  ])('tells the model which argument of %s broke which rule: %j', (action, args, problem) => {
    expect(checkProposal({ action, args, reason: 'A reason long enough to pass.' }, schemas)).toEqual({ ok: false, problems: [problem] });
  });
});
