import type { LanguageModel } from '../../../src/application/agent/ports/language-model.port';
import type { AgentSettings } from '../../../src/application/agent/agent-settings';
import type { CycleScope } from '../../../src/application/outreach/cycle';
import { OutreachActionPlanner } from '../../../src/application/outreach/outreach-action-planner';
import { OutreachActionRunner } from '../../../src/application/outreach/outreach-action-runner';
import { OutreachChannels } from '../../../src/application/outreach/outreach-channels';
import { QuotaDeferral } from '../../../src/application/outreach/outreach-quota-deferral';
import { ReviewHold } from '../../../src/application/outreach/outreach-review-hold';
import { SessionRefresh } from '../../../src/application/outreach/outreach-session-refresh';
import type { OutreachChannel } from '../../../src/application/outreach/ports/channels.port';
import type { OutreachSettings } from '../../../src/application/outreach/outreach-settings';
import type { CycleContext } from '../../../src/domain/outreach/planning';
import type {
  ClaimedTask,
  OutreachCycleStore,
  TaskCycleContext,
  TaskReview,
} from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { OutreachDraftStore } from '../../../src/application/outreach/ports/outreach-draft-store.port';
import { RunOutreachCycleUseCase } from '../../../src/application/outreach/run-outreach-cycle.use-case';
import { UnsubscribeLinks } from '../../../src/application/outreach/unsubscribe/unsubscribe-links';
import { DEFAULT_AGENT_LIMITS, DEFAULT_SAMPLING } from '../../../src/domain/agent/limits';
import { HmacLinkSigner } from '../../../src/infrastructure/security/hmac-link-signer';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import { FixedClock } from '../fixed-clock';
import { RecordingLogger } from '../recording-logger';
import { RecordingMetrics } from '../recording-metrics';
import { NoReviewDraftStore } from './no-review-draft-store';
import { SECRET_NAMES, taskContext } from './proposals';
import {
  type Journal,
  MapSecretStore,
  RecordingEmailChannel,
  RecordingLinkedInChannel,
  SequentialIdGenerator,
  SingleTaskCycleStore,
} from './recording-outreach-ports';
import { RecordingAuditLog } from '../recording-audit-log';
import type { PolicyGate } from '../../../src/application/policy/policy-gate';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { builtInPolicy, policyGate } from '../policy';

/** One outreach cycle through the real use case, its planner and runner, on in-memory ports. */

export const CLAIM: ClaimedTask = {
  taskId: 'task-1',
  campaignId: taskContext('ScrapeProfile').campaign.id,
  ownerId: 'owner-1',
  workerId: 'worker-1',
  attempts: 1,
};

export const SETTINGS: OutreachSettings = {
  ownerDailyLimits: { profile_lookup: 100, linkedin_message: 100, email: 100 },
  ownerWeeklyLimits: { profile_lookup: 500, linkedin_message: 100, email: 500 },
  leaseMs: 60_000,
  planTimeoutMs: 60_000,
  actionTimeoutMs: 60_000,
  secretNames: SECRET_NAMES,
  draftTtlHours: 72,
};

const AGENT_SETTINGS: AgentSettings = { limits: DEFAULT_AGENT_LIMITS, sampling: DEFAULT_SAMPLING, prices: null, turnsPerMinute: 60 };
/** One for every cycle, as in the service: each action contract is compiled once. */
const SCHEMAS = new AjvSchemaValidator();
const SECRETS = new Map(SECRET_NAMES.map((name) => [name, `session-of-${name}`]));
export const UNSUBSCRIBE_LINKS = new UnsubscribeLinks(
  HmacLinkSigner.derive('a-secret-of-at-least-thirty-two-characters', 'unsubscribe'),
  'https://bridle.example',
);

/** Channel calls that do something to or for a person; `find` only reads what a key did. */
export const ACTING_CALLS = ['linkedin:scrapeProfile', 'linkedin:sendMessage', 'linkedin:useSession', 'email:send'];

/**
 * Runs one cycle of the task in `context` (claimed as `claim`) with `model` as the planner;
 * `review` is the task's review state as loaded with its context (none by default), and
 * `drafts` holds what it says to hold.
 */
export async function runOneCycle(
  model: LanguageModel,
  context: TaskCycleContext,
  claim: ClaimedTask = CLAIM,
  options: { drafts?: OutreachDraftStore; review?: TaskReview } = {},
) {
  const journal: Journal = [];
  const store = new SingleTaskCycleStore(claim, context, journal, options.review);
  const linkedin = new RecordingLinkedInChannel(journal);
  const email = new RecordingEmailChannel(journal);
  const secrets = new MapSecretStore(SECRETS, journal);
  const audit = new RecordingAuditLog(journal);
  const logger = new RecordingLogger();
  const clock = new FixedClock();
  const metrics = new RecordingMetrics();
  const sut = new RunOutreachCycleUseCase(
    store,
    new OutreachActionPlanner(model, audit, SETTINGS, logger, SCHEMAS),
    runnerOn({ store, drafts: options.drafts, linkedin, email, secrets, audit, clock, metrics, logger }),
    new QuotaDeferral(store, audit, metrics, clock),
    audit,
    SETTINGS,
    AGENT_SETTINGS,
    clock,
    new SequentialIdGenerator(),
    metrics,
    logger,
  );
  const outcome = await sut.run({ workerId: claim.workerId });
  const acting = journal.filter((event) => ACTING_CALLS.includes(event));
  return { outcome, journal, store, linkedin, email, secrets, audit, acting, now: clock.now() };
}

/** The runner on the cycle's in-memory ports: how the harness and the runner's own spec build it. */
export function runnerOn(ports: {
  store: OutreachCycleStore;
  drafts?: OutreachDraftStore;
  linkedin: RecordingLinkedInChannel;
  email: RecordingEmailChannel;
  secrets: MapSecretStore;
  audit: RecordingAuditLog;
  clock: FixedClock;
  metrics: RecordingMetrics;
  logger: RecordingLogger;
  policy?: PolicyGate;
  /** The channels the runner routes to: LinkedIn's and email's unless told. */
  channels?: readonly OutreachChannel[];
}): OutreachActionRunner {
  const { store, linkedin, email, secrets, audit, clock, metrics, logger } = ports;
  const channels = new OutreachChannels(ports.channels ?? [linkedin, email], UNSUBSCRIBE_LINKS);
  const quota = new QuotaDeferral(store, audit, metrics, clock);
  return new OutreachActionRunner(
    store,
    channels,
    quota,
    new ReviewHold(ports.drafts ?? new NoReviewDraftStore(), quota, SETTINGS, clock),
    new SessionRefresh(channels, secrets, audit, clock),
    audit,
    SETTINGS,
    clock,
    metrics,
    logger,
    ports.policy ?? policyGate(builtInPolicy(TODO_TOOLS), { clock }),
  );
}

/**
 * The planner alone, asked once in a fresh cycle of CLAIM's owner: what it planned, what it
 * audited, and the cycle as its decision row would see it (its scope, with what planning returned for the row).
 */
export async function planOnce(model: LanguageModel, context: CycleContext) {
  const audit = new RecordingAuditLog([]);
  const sut = new OutreachActionPlanner(model, audit, SETTINGS, new RecordingLogger(), new AjvSchemaValidator());
  const scope: CycleScope = {
    decisionId: 'decision-1',
    started: new Date('2026-11-22T09:00:00.000Z'),
    campaignId: context.campaign.id,
    ownerId: CLAIM.ownerId,
    taskId: context.kind === 'task' ? context.task.id : null,
  };
  const { result, decision } = await sut.plan(scope, context);
  return { result, audit, cycle: { ...scope, ...decision } };
}
