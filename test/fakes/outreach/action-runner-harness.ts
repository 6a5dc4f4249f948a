import type { TaskScope } from '../../../src/application/outreach/cycle';
import { type ActRoute } from '../../../src/application/outreach/outreach-action-runner';
import type { ChannelAction } from '../../../src/application/outreach/outreach-channels';
import type { BeginAction, BeginResult, ClaimedTask } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { HoldDraft, HoldResult } from '../../../src/application/outreach/ports/outreach-draft-store.port';
import { type OutreachTaskType } from '../../../src/domain/outreach/outreach-task';
import { CLAIM, runnerOn } from './cycle-harness';
import { NoReviewDraftStore } from './no-review-draft-store';
import { LEAD, SECRET_NAMES, taskContext } from './proposals';
import {
  type Journal,
  MapSecretStore,
  NO_REVIEW,
  RecordingEmailChannel,
  RecordingLinkedInChannel,
  SingleTaskCycleStore,
} from './recording-outreach-ports';
import { RecordingAuditLog } from '../recording-audit-log';
import { FixedClock } from '../fixed-clock';
import { RecordingLogger } from '../recording-logger';
import { RecordingMetrics } from '../recording-metrics';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import type { PolicyRule } from '../../../src/domain/policy/policy';
import { policyGate, policyOf } from '../policy';

export const REASON = 'The next step of this task';
export const MESSAGE = {
  action: 'linkedin_send_message',
  args: { profileUrl: LEAD.linkedinUrl, message: 'Hello Jane' },
  reason: REASON,
} as const satisfies ChannelAction;
export const EMAIL = {
  action: 'send_email',
  args: { to: LEAD.email, subject: 'Hello', body: 'Hello Jane' },
  reason: REASON,
} as const satisfies ChannelAction;
export const SHOWN = { proposal: null, validation: null };

/** A cycle store whose begin, once told an answer, gives it instead of reserving. */
export class RefusingCycleStore extends SingleTaskCycleStore {
  answer: BeginResult | null = null;
  override begin(input: BeginAction): Promise<BeginResult> {
    if (!this.answer) return super.begin(input);
    this.begun.push(input);
    return Promise.resolve(this.answer);
  }
}

/** A draft store that holds every action it is given. */
export class HoldingDraftStore extends NoReviewDraftStore {
  readonly held: HoldDraft[] = [];
  override hold(input: HoldDraft): Promise<HoldResult> {
    this.held.push(input);
    return Promise.resolve({ status: 'held', draftId: 'draft-1', argumentsHash: 'a'.repeat(64), expiresAt: input.expiresAt });
  }
}

/** The runner on in-memory ports, for a task of `type` claimed as `claim`; `begin` is what the store's begin answers, if not a reservation. */
export function runner(
  options: {
    claim?: ClaimedTask;
    type?: OutreachTaskType;
    linkedin?: (journal: Journal) => RecordingLinkedInChannel;
    begin?: BeginResult;
    drafts?: NoReviewDraftStore;
    rules?: readonly PolicyRule[];
  } = {},
) {
  const journal: Journal = [];
  const claim = options.claim ?? CLAIM;
  const context = taskContext(options.type ?? 'SendLinkedInMessage');
  const store = new RefusingCycleStore(claim, context, journal);
  store.answer = options.begin ?? null;
  const linkedin = options.linkedin?.(journal) ?? new RecordingLinkedInChannel(journal);
  const email = new RecordingEmailChannel(journal);
  const secrets = new MapSecretStore(new Map([[SECRET_NAMES[0], 'a-session']]), journal);
  const audit = new RecordingAuditLog(journal);
  const clock = new FixedClock();
  const metrics = new RecordingMetrics();
  const policy = options.rules ? policyGate(policyOf(TODO_TOOLS, options.rules, 2), { clock }) : undefined;
  const logger = new RecordingLogger();
  const sut = runnerOn({ store, drafts: options.drafts, linkedin, email, secrets, audit, clock, metrics, logger, policy });
  const task: TaskScope = {
    decisionId: 'decision-1',
    started: clock.now(),
    campaignId: claim.campaignId,
    ownerId: claim.ownerId,
    taskId: claim.taskId,
    claim,
    context,
  };
  const act = (proposal: ChannelAction, route: ActRoute = { review: NO_REVIEW }) => sut.act(task, proposal, SHOWN, route);
  return { sut, task, act, journal, store, linkedin, email, secrets, audit, metrics, now: clock.now() };
}
