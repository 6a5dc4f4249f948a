import fc from 'fast-check';
import type { Completion } from '../../../src/application/agent/ports/language-model.port';
import { RunOutreachCycleUseCase } from '../../../src/application/outreach/run-outreach-cycle.use-case';
import { withUnsubscribeFooter } from '../../../src/domain/outreach/unsubscribe';
import { TASK_TYPES, type OutreachTaskType } from '../../../src/domain/outreach/outreach-task';
import { emailAddress, emailKey } from '../../../src/domain/shared/email-address';
import { ACTING_CALLS, CLAIM, runOneCycle, UNSUBSCRIBE_LINKS } from '../../fakes/outreach/cycle-harness';
import { contractAcceptsText, LEAD, proposalAnswer, rawAnswer, taskContext } from '../../fakes/outreach/proposals';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

function answered(text: string | null): Completion {
  return { ...say(''), text };
}

/** One cycle of a task of `type` (test/fakes/outreach/cycle-harness.ts) whose model gives `answers` in turn. */
async function runCycle(type: OutreachTaskType, answers: readonly (string | null)[]) {
  const model = new ScriptedLanguageModel();
  model.use((_, call) => answered(answers[call - 1]));
  return { ...(await runOneCycle(model, taskContext(type))), asked: model.requests.length };
}

describe(RunOutreachCycleUseCase.name, () => {
  it('executes no proposal that breaks the contract and audits every refusal with its reasons', async () => {
    const tally = { validated: 0, refused: 0, accepted: 0, acted: 0, noValidAction: 0 };
    const answer = (type: OutreachTaskType) =>
      fc.oneof(
        { weight: 9, arbitrary: proposalAnswer(taskContext(type)).map(({ text }) => text) },
        { weight: 1, arbitrary: rawAnswer(taskContext(type)) },
      );
    const runs = fc.oneof(
      ...TASK_TYPES.map((type) => fc.record({ type: fc.constant(type), answers: fc.tuple(answer(type), answer(type)) })),
    );

    await fc.assert(
      fc.asyncProperty(runs, async ({ type, answers }) => {
        const { outcome, journal, store, linkedin, email, secrets, audit, asked } = await runCycle(type, answers);
        const context = taskContext(type);
        const fits = answers.map((text) => contractAcceptsText(text, context));
        const acceptedAt = fits[0] ? 0 : fits[1] ? 1 : -1;
        const refusedTexts = acceptedAt === -1 ? answers : answers.slice(0, acceptedAt);

        expect(asked).toBe(acceptedAt === 0 ? 1 : 2);

        // Every refused answer: exactly one row, rejected as INVALID_PROPOSAL, with the answer and its problems.
        const rejected = audit.rows.filter((row) => row.outcome?.status === 'rejected');
        expect(rejected).toHaveLength(refusedTexts.length);
        rejected.forEach((row, i) => {
          expect(row.outcome).toMatchObject({ errorCode: 'INVALID_PROPOSAL' });
          const problems = (row.outcome?.result as { problems?: unknown }).problems;
          expect(Array.isArray(problems) && problems.length > 0 && problems.every((p) => typeof p === 'string' && p.length > 0)).toBe(true);
          expect(row.entry).toMatchObject({ source: 'outreach', outreachTaskId: CLAIM.taskId, actorId: CLAIM.ownerId });
          expect(JSON.stringify(row.entry.arguments)).toBe(
            JSON.stringify(parsedObject(refusedTexts[i]) ?? { text: (refusedTexts[i] ?? '').slice(0, 2000) }),
          );
        });

        // A pending audit row (the store's begin, or recordPending) comes before any channel call.
        const firstChannelCall = journal.findIndex((event) => event.startsWith('linkedin:') || event.startsWith('email:'));
        const firstPending = journal.findIndex((event) => event === 'store:begin' || event === 'audit:pending');
        if (firstChannelCall !== -1) expect(firstPending).toBeGreaterThanOrEqual(0);
        if (firstChannelCall !== -1) expect(firstPending).toBeLessThan(firstChannelCall);
        const acting = journal.filter((event) => ACTING_CALLS.includes(event));

        tally.validated += asked;
        tally.refused += refusedTexts.length;
        if (acceptedAt === -1) {
          tally.noValidAction++;
          expect(outcome).toMatchObject({ code: 'NO_VALID_ACTION', validation: { accepted: false, attempts: 2 } });
          expect(journal.filter((event) => !event.startsWith('audit:rejected'))).toEqual(['store:claimTask', 'store:releaseTask']);
          expect(store.begun).toHaveLength(0);
          return;
        }

        tally.accepted++;
        const accepted = JSON.parse(answers[acceptedAt]!) as { action: string; args: Record<string, unknown> };
        expect(outcome.validation).toMatchObject({ accepted: true, attempts: acceptedAt + 1 });
        expect(outcome.proposal).toMatchObject({ action: accepted.action, by: 'model' });
        tally.acted += acting.length;
        switch (accepted.action) {
          case 'linkedin_scrape_profile':
            expect(acting).toEqual(['linkedin:scrapeProfile']);
            expect(linkedin.calls[0].input).toMatchObject({
              profileUrl: LEAD.linkedinUrl,
              fields: [...new Set(accepted.args.fields as string[])],
            });
            break;
          case 'linkedin_send_message':
            expect(acting).toEqual(['linkedin:sendMessage']);
            expect(linkedin.calls[0].input).toMatchObject({ profileUrl: LEAD.linkedinUrl, message: accepted.args.message });
            break;
          case 'send_email':
            expect(acting).toEqual(['email:send']);
            // To the lead's address in canonical form (the local part as the model cased it: its key is the lead's),
            // the body as proposed, with the unsubscribe footer every email gets.
            expect(emailKey(email.calls[0].input.to)).toBe(emailKey(LEAD.email));
            expect(email.calls[0].input).toMatchObject({
              to: emailAddress(accepted.args.to)!.address,
              subject: accepted.args.subject,
              body: withUnsubscribeFooter(
                accepted.args.body as string,
                UNSUBSCRIBE_LINKS.url({ ownerId: CLAIM.ownerId, campaignId: CLAIM.campaignId, email: LEAD.email }),
              ),
            });
            break;
          case 'refresh_session':
            expect(acting).toEqual(['linkedin:useSession']);
            expect(secrets.fetched).toEqual([accepted.args.secretName]);
            break;
          default:
            expect(accepted.action).toBe('wait_cooldown');
            expect(acting).toEqual([]);
        }
        if (acting.length && accepted.action !== 'refresh_session') {
          expect(store.begun).toHaveLength(1);
          expect(outcome).toMatchObject({ status: 'completed', code: null });
        } else {
          expect(store.begun).toHaveLength(0);
        }
      }),
      { numRuns: 6_500 },
    );

    // At least 10 000 proposals through the validator; a first answer that is accepted spares the second.
    expect(tally.validated).toBeGreaterThanOrEqual(10_000);
    expect(tally.refused).toBeGreaterThan(5_000);
    expect(tally.accepted).toBeGreaterThan(500);
    expect(tally.noValidAction).toBeGreaterThan(1_000);
  }, 120_000);
});

function parsedObject(text: string | null): unknown {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
