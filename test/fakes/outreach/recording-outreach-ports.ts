import {
  OutreachChannel,
  SecretNotFoundError,
  SecretStore,
  type ChannelLookup,
  type ChannelRecord,
  type ChannelRequest,
  type Profile,
} from '../../../src/application/outreach/ports/channels.port';
import {
  OutreachCycleStore,
  type BeginAction,
  type BeginResult,
  type ClaimedTask,
  type FinishAction,
  type OutreachDecision,
  type ClaimedWork,
  type StaleAction,
  type TaskCycleContext,
  type TaskRelease,
  type TaskReview,
  type WrapUpContext,
} from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import { IdGenerator } from '../../../src/application/shared/ports/id-generator.port';
import type { ProfileField } from '../../../src/domain/outreach/actions';
import type { ActionKind } from '../../../src/domain/outreach/outreach-task';

/**
 * In-memory outreach ports that write what happened, in order, to one shared journal
 * (`store:begin`, `audit:pending`, `audit:rejected`, `linkedin:sendMessage`, …), so a test
 * can tell what came before what.
 */
export type Journal = string[];

/** A campaign whose approval mode is `none`, with no approved draft: no action waits for a person. */
export const NO_REVIEW: TaskReview = { policy: { mode: 'none', firstN: 3 }, approved: 0, approvedDraft: null };

/** Hands out one claimed task with a fixed context and review state; `begin` reserves (its pending audit row) every time. */
export class SingleTaskCycleStore extends OutreachCycleStore {
  readonly begun: BeginAction[] = [];
  readonly finished: FinishAction[] = [];
  readonly released: TaskRelease[] = [];
  readonly decisions: OutreachDecision[] = [];
  /** When the pending decision rows that dead workers left were opened, until closeAbandonedDecisions closes them. */
  readonly abandoned: Date[] = [];
  readonly closeQueries: { openedBefore: Date; limit: number }[] = [];

  constructor(
    private readonly claim: ClaimedTask,
    private readonly context: TaskCycleContext,
    private readonly journal: Journal,
    private readonly review: TaskReview = NO_REVIEW,
  ) {
    super();
  }

  claimTask(): Promise<ClaimedWork | null> {
    this.journal.push('store:claimTask');
    return Promise.resolve({ claim: this.claim, loaded: { context: this.context, review: this.review } });
  }

  findFinishedCampaign(): Promise<{ campaignId: string; ownerId: string } | null> {
    return Promise.resolve(null);
  }

  loadWrapUpContext(): Promise<WrapUpContext | null> {
    return Promise.resolve(null);
  }

  releaseTask(_: ClaimedTask, release: TaskRelease, _now: Date, decision?: OutreachDecision): Promise<boolean> {
    this.journal.push('store:releaseTask');
    this.released.push(release);
    // The cycle's decision row rides in the release.
    if (decision) this.decisions.push(decision);
    return Promise.resolve(true);
  }

  deferKind(): Promise<number> {
    return Promise.resolve(0);
  }

  begin(input: BeginAction): Promise<BeginResult> {
    this.journal.push('store:begin');
    this.begun.push(input);
    const n = this.begun.length;
    return Promise.resolve({ status: 'reserved', actionId: `action-${n}`, idempotencyKey: `key-${n}`, pendingSeq: n });
  }

  finish(input: FinishAction): Promise<void> {
    this.journal.push('store:finish');
    this.finished.push(input);
    // The cycle's decision row rides in the settlement.
    if (input.decision) this.decisions.push(input.decision);
    return Promise.resolve();
  }

  completeCampaign(): Promise<boolean> {
    this.journal.push('store:completeCampaign');
    return Promise.resolve(false);
  }

  recordDecision(decision: OutreachDecision): Promise<void> {
    this.decisions.push(decision);
    return Promise.resolve();
  }

  claimStaleActions(): Promise<StaleAction[]> {
    return Promise.resolve([]);
  }

  closeAbandonedDecisions(input: { openedBefore: Date; limit: number }): Promise<number> {
    this.closeQueries.push(input);
    const closed = this.abandoned
      .filter((openedAt) => openedAt < input.openedBefore)
      .sort((a, b) => a.getTime() - b.getTime())
      .slice(0, input.limit);
    for (const openedAt of closed) this.abandoned.splice(this.abandoned.indexOf(openedAt), 1);
    return Promise.resolve(closed.length);
  }
}

export interface ChannelCallRecord {
  readonly method: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** Finds every profile complete and accepts every message, remembering it by key. */
export class RecordingLinkedInChannel extends OutreachChannel {
  readonly name = 'sandbox';
  readonly kinds: readonly ActionKind[] = ['profile_lookup', 'linkedin_message'];
  readonly calls: ChannelCallRecord[] = [];
  private readonly byKey = new Map<string, ChannelRecord>();

  constructor(private readonly journal: Journal) {
    super();
  }

  async perform(request: ChannelRequest): Promise<ChannelRecord> {
    const input = { ...(request.args as { profileUrl: string; fields: readonly ProfileField[]; message: string }), ...request };
    return request.kind === 'profile_lookup'
      ? { kind: 'profile', profile: await this.scrapeProfile(input) }
      : { kind: 'message', ...(await this.sendMessage(input)) };
  }

  scrapeProfile(input: { profileUrl: string; fields: readonly ProfileField[]; idempotencyKey: string }): Promise<Profile> {
    this.called('scrapeProfile', { profileUrl: input.profileUrl, fields: input.fields, idempotencyKey: input.idempotencyKey });
    const profile: Profile = { name: 'Jane Doe', headline: 'CTO at Acme', title: 'CTO', company: 'Acme', location: 'Berlin', email: null };
    this.byKey.set(input.idempotencyKey, { kind: 'profile', profile });
    return Promise.resolve(profile);
  }

  sendMessage(input: { profileUrl: string; message: string; idempotencyKey: string }): Promise<{ messageId: string }> {
    this.called('sendMessage', { profileUrl: input.profileUrl, message: input.message, idempotencyKey: input.idempotencyKey });
    const messageId = `li-${input.idempotencyKey}`;
    this.byKey.set(input.idempotencyKey, { kind: 'message', messageId });
    return Promise.resolve({ messageId });
  }

  find(idempotencyKey: string): Promise<ChannelLookup> {
    this.called('find', { idempotencyKey });
    return Promise.resolve(this.byKey.get(idempotencyKey) ?? null);
  }

  override useSession(session: string): Promise<void> {
    this.called('useSession', { session });
    return Promise.resolve();
  }

  private called(method: string, input: Record<string, unknown>): void {
    this.journal.push(`linkedin:${method}`);
    this.calls.push({ method, input });
  }
}

export class RecordingEmailChannel extends OutreachChannel {
  readonly name = 'sandbox';
  readonly kinds: readonly ActionKind[] = ['email'];
  readonly calls: ChannelCallRecord[] = [];
  private readonly byKey = new Map<string, ChannelRecord>();

  constructor(private readonly journal: Journal) {
    super();
  }

  async perform(request: ChannelRequest): Promise<ChannelRecord> {
    return { kind: 'message', ...(await this.send({ ...(request.args as { to: string; subject: string; body: string }), ...request })) };
  }

  send(input: { to: string; subject: string; body: string; idempotencyKey: string }): Promise<{ messageId: string }> {
    this.called('send', { to: input.to, subject: input.subject, body: input.body, idempotencyKey: input.idempotencyKey });
    const messageId = `mail-${input.idempotencyKey}`;
    this.byKey.set(input.idempotencyKey, { kind: 'message', messageId });
    return Promise.resolve({ messageId });
  }

  find(idempotencyKey: string): Promise<ChannelLookup> {
    this.called('find', { idempotencyKey });
    return Promise.resolve(this.byKey.get(idempotencyKey) ?? null);
  }

  private called(method: string, input: Record<string, unknown>): void {
    this.journal.push(`email:${method}`);
    this.calls.push({ method, input });
  }
}

export class MapSecretStore extends SecretStore {
  readonly fetched: string[] = [];

  constructor(
    private readonly secrets: ReadonlyMap<string, string>,
    private readonly journal: Journal,
  ) {
    super();
  }

  fetch(secretName: string): Promise<string> {
    this.journal.push('secrets:fetch');
    this.fetched.push(secretName);
    const secret = this.secrets.get(secretName);
    return secret === undefined ? Promise.reject(new SecretNotFoundError(secretName)) : Promise.resolve(secret);
  }
}

export class SequentialIdGenerator extends IdGenerator {
  private n = 0;

  next(): string {
    this.n++;
    return `00000000-0000-4000-8000-${String(this.n).padStart(12, '0')}`;
  }
}
