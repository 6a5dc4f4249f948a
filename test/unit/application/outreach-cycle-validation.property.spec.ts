import fc from 'fast-check';
import type { Completion } from '../../../src/application/agent/ports/language-model.port';
import type { AgentSettings } from '../../../src/application/chat/agent-settings';
import { OutreachActionPlanner } from '../../../src/application/outreach/outreach-action-planner';
import { OutreachActionRunner } from '../../../src/application/outreach/outreach-action-runner';
import { OutreachChannels } from '../../../src/application/outreach/outreach-channels';
import type { OutreachSettings } from '../../../src/application/outreach/outreach-settings';
import { RunOutreachCycleUseCase } from '../../../src/application/outreach/run-outreach-cycle.use-case';
import { UnsubscribeLinks } from '../../../src/application/outreach/unsubscribe/unsubscribe-links';
import { withUnsubscribeFooter } from '../../../src/domain/outreach/unsubscribe';
import { HmacLinkSigner } from '../../../src/infrastructure/security/hmac-link-signer';
import { DEFAULT_AGENT_LIMITS, DEFAULT_SAMPLING } from '../../../src/domain/agent/limits';
import { TASK_TYPES, type OutreachTaskType } from '../../../src/domain/outreach/outreach-task';
import { FixedClock } from '../../fakes/fixed-clock';
import { NoReviewDraftStore } from '../../fakes/outreach/no-review-draft-store';
import { contractAcceptsText, LEAD, proposalAnswer, rawAnswer, SECRET_NAMES, taskContext } from '../../fakes/outreach/proposals';
import {
  MapSecretStore,
  RecordingAuditLog,
  RecordingEmailChannel,
  RecordingLinkedInChannel,
  SequentialIdGenerator,
  SingleTaskCycleStore,
  type Journal,
} from '../../fakes/outreach/recording-outreach-ports';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';
import { RecordingLogger } from '../../fakes/recording-logger';
import { RecordingMetrics } from '../../fakes/recording-metrics';

const CLAIM = {
  taskId: 'task-1',
  campaignId: taskContext('ScrapeProfile').campaign.id,
  ownerId: 'owner-1',
  workerId: 'worker-1',
  attempts: 1,
};
const SETTINGS: OutreachSettings = {
  ownerDailyLimits: { profile_lookup: 100, linkedin_message: 100, email: 100 },
  ownerWeeklyLimits: { profile_lookup: 500, linkedin_message: 100, email: 500 },
  leaseMs: 60_000,
  planTimeoutMs: 60_000,
  actionTimeoutMs: 60_000,
  secretNames: SECRET_NAMES,
  draftTtlHours: 72,
};
const AGENT_SETTINGS: AgentSettings = { limits: DEFAULT_AGENT_LIMITS, sampling: DEFAULT_SAMPLING, pricing: null };
const SECRETS = new Map(SECRET_NAMES.map((name) => [name, `session-of-${name}`]));
const UNSUBSCRIBE_LINKS = new UnsubscribeLinks(
  HmacLinkSigner.derive('a-secret-of-at-least-thirty-two-characters', 'unsubscribe'),
  'https://bridle.example',
);

/** Channel calls that do something to or for a person; `find` only reads what a key did. */
const ACTING_CALLS = ['linkedin:scrapeProfile', 'linkedin:sendMessage', 'linkedin:useSession', 'email:send'];

function answered(text: string | null): Completion {
  return { ...say(''), text };
}

async function runCycle(type: OutreachTaskType, answers: readonly (string | null)[]) {
  const journal: Journal = [];
  const store = new SingleTaskCycleStore(CLAIM, taskContext(type), journal);
  const linkedin = new RecordingLinkedInChannel(journal);
  const email = new RecordingEmailChannel(journal);
  const secrets = new MapSecretStore(SECRETS, journal);
  const audit = new RecordingAuditLog(journal);
  const model = new ScriptedLanguageModel();
  model.use((_, call) => answered(answers[call - 1]));
  const logger = new RecordingLogger();
  const clock = new FixedClock();
  const metrics = new RecordingMetrics();
  const sut = new RunOutreachCycleUseCase(
    store,
    new OutreachActionPlanner(model, audit, SETTINGS, logger),
    new OutreachActionRunner(
      store,
      new NoReviewDraftStore(),
      new OutreachChannels(linkedin, email, UNSUBSCRIBE_LINKS),
      linkedin,
      secrets,
      audit,
      SETTINGS,
      clock,
      metrics,
      logger,
    ),
    audit,
    SETTINGS,
    AGENT_SETTINGS,
    clock,
    new SequentialIdGenerator(),
    metrics,
    logger,
  );
  const outcome = await sut.run({ workerId: CLAIM.workerId });
  return { outcome, journal, store, linkedin, email, secrets, audit, asked: model.requests.length };
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
            // The body as proposed, with the unsubscribe footer every email gets.
            expect(email.calls[0].input).toMatchObject({
              to: LEAD.email,
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
