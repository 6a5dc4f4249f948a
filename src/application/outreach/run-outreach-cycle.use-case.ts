import { Injectable } from '@nestjs/common';
import { classifyModelFailure } from '../../domain/agent/failures';
import { LanguageModelError, LanguageModelInvalidJsonError } from '../../domain/agent/language-model-errors';
import { costOf } from '../../domain/agent/pricing';
import { ACTION_CONTRACTS, checkProposal, type Proposal, withSentMessage } from '../../domain/outreach/actions';
import { ChannelError } from '../../domain/outreach/channel-errors';
import { checkContext, fitProblems, idempotencyMaterial, type CycleContext } from '../../domain/outreach/planning';
import { type ActionKind, MAX_TASK_ATTEMPTS, retryDelayMs, TASK_ACTION } from '../../domain/outreach/outreach-task';
import { hoursUntilReset, nextUtcMidnight, type QuotaScope, utcDay } from '../../domain/outreach/quota';
import { completeJson } from '../agent/complete-json';
import { AuditLog, type ToolAuditEntry } from '../agent/ports/audit-log.port';
import { LanguageModel, type TokenUsage } from '../agent/ports/language-model.port';
import { AgentSettings } from '../chat/agent-settings';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Metrics } from '../shared/ports/metrics.port';
import type { CycleCode, CycleOutcome, CycleStatus } from './cycle-outcome';
import { OUTREACH_SYSTEM_PROMPT, outreachUserPrompt } from './outreach-planner.prompt';
import { OutreachChannels, type ChannelAction } from './outreach-channels';
import { OutreachSettings } from './outreach-settings';
import { SecretNotFoundError, SecretStore, LinkedInChannel } from './ports/channels.port';
import type { ChannelRecord } from './ports/channels.port';
import {
  OutreachCycleStore,
  type ClaimedTask,
  type TaskCycleContext,
  type TaskRelease,
  type WrapUpContext,
} from './ports/outreach-cycle-store.port';
import { Logger } from '../shared/ports/logger.port';

/** Planning asks for one short JSON answer: a little variety, at most 500 tokens. */
const PLANNING = { temperature: 0.3, maxTokens: 500 } as const;

interface Cycle {
  readonly decisionId: string;
  readonly started: Date;
  readonly campaignId: string;
  readonly ownerId: string;
  usage: TokenUsage;
  planningAttempts: number;
  failureClass: string | null;
  providerRequestId: string | null;
}

/**
 * One outreach cycle: claim one due task, reload its state, check the context,
 * ask the model for ONE action, check it, reserve quota and audit before acting, act
 * through the channel, verify, record. Nothing is remembered between cycles.
 */
@Injectable()
export class RunOutreachCycleUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: OutreachCycleStore,
    private readonly model: LanguageModel,
    private readonly channels: OutreachChannels,
    private readonly linkedin: LinkedInChannel,
    private readonly secrets: SecretStore,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    private readonly agentSettings: AgentSettings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: Metrics,
    logger: Logger,
  ) {
    this.logger = logger.withContext(RunOutreachCycleUseCase.name);
  }

  /** Works the most overdue task (of `campaignId`, if given), or completes a finished campaign. */
  async run(input: { workerId: string; campaignId?: string }): Promise<CycleOutcome> {
    const now = this.clock.now();
    const claim = await this.store.claimTask({
      workerId: input.workerId,
      now,
      leaseMs: this.settings.leaseMs,
      campaignId: input.campaignId,
    });
    if (claim) return this.recorded(this.newCycle(claim.campaignId, claim.ownerId, now), (cycle) => this.workTask(cycle, claim));
    const finished = await this.store.findFinishedCampaign({ campaignId: input.campaignId });
    if (finished) return this.recorded(this.newCycle(finished.campaignId, finished.ownerId, now), (cycle) => this.wrapUp(cycle));
    return outcome({ status: 'idle', code: 'NO_TASK', message: 'No task is due and no campaign is ready to complete.' });
  }

  private newCycle(campaignId: string, ownerId: string, started: Date): Cycle {
    return {
      decisionId: this.ids.next(),
      started,
      campaignId,
      ownerId,
      usage: { promptTokens: 0, completionTokens: 0 },
      planningAttempts: 0,
      failureClass: null,
      providerRequestId: null,
    };
  }

  /** Runs a cycle and writes its decision-log row, whatever happened. */
  private async recorded(cycle: Cycle, work: (cycle: Cycle) => Promise<CycleOutcome>): Promise<CycleOutcome> {
    const result = { ...(await work(cycle)), decisionId: cycle.decisionId, campaignId: cycle.campaignId };
    const pricing = this.agentSettings.pricing;
    const durationMs = this.clock.now().getTime() - cycle.started.getTime();
    await this.store.recordDecision({
      id: cycle.decisionId,
      ownerId: cycle.ownerId,
      campaignId: cycle.campaignId,
      taskId: result.task?.id ?? null,
      decisionType: result.proposal?.action ?? result.code ?? result.status,
      status: result.status,
      iterations: cycle.planningAttempts,
      provider: this.model.provider,
      model: this.model.model,
      promptTokens: cycle.usage.promptTokens,
      completionTokens: cycle.usage.completionTokens,
      cost: pricing && cycle.planningAttempts > 0 ? costOf(cycle.usage, pricing) : null,
      durationMs,
      failureClass: cycle.failureClass,
      providerRequestId: cycle.providerRequestId,
      createdAt: cycle.started,
    });
    this.metrics.outreachCycle(result.status, result.code, durationMs / 1000);
    this.logger.info({
      msg: 'outreach cycle',
      decisionId: cycle.decisionId,
      campaignId: cycle.campaignId,
      taskId: result.task?.id,
      status: result.status,
      code: result.code,
    });
    return result;
  }

  private async workTask(cycle: Cycle, claim: ClaimedTask): Promise<CycleOutcome> {
    const now = cycle.started;
    const context = await this.store.loadTaskContext(claim, {
      day: utcDay(now),
      ownerLimits: this.settings.ownerDailyLimits,
      secretNames: this.settings.secretNames,
    });
    if (!context) return outcome({ status: 'failed', code: 'LEASE_LOST', message: 'The task went away while it was being claimed.' });
    const entry = (tool: string, args: unknown): ToolAuditEntry => ({
      source: 'outreach',
      actorId: claim.ownerId,
      campaignId: claim.campaignId,
      outreachTaskId: claim.taskId,
      decisionId: cycle.decisionId,
      tool,
      arguments: (args ?? {}) as Record<string, unknown>,
      securityEvents: [],
    });
    const view = (release: TaskRelease): CycleOutcome['task'] => ({
      id: claim.taskId,
      type: context.task.type,
      leadName: context.lead.name,
      status: release.status,
      attempts: claim.attempts,
      nextRunAt: release.status === 'Pending' ? (release.nextRunAt ?? now) : null,
    });
    const leave = async (release: TaskRelease, result: Omit<Partial<CycleOutcome>, 'task'> & { status: CycleStatus; message: string }) => {
      await this.store.releaseTask(claim, release, this.clock.now());
      return outcome({ ...result, task: view(release) });
    };

    const contextCheck = checkContext(context);
    if (!contextCheck.ok) {
      const problems = contextCheck.problems.join('; ');
      await this.audit.record(entry(TASK_ACTION[context.task.type].action, { profileUrl: context.lead.linkedinUrl }), {
        status: 'rejected',
        errorCode: contextCheck.code,
        result: { problems: contextCheck.problems },
        durationMs: 0,
      });
      if (contextCheck.code === 'QUOTA_EXCEEDED') {
        const { release, deferred } = await this.deferForQuota(claim, contextCheck.kind, contextCheck.scope, now);
        return leave(release, {
          status: 'deferred',
          code: 'QUOTA_EXCEEDED',
          message: `Quota exhausted: ${problems}. This and ${deferred} other waiting tasks resume at the next UTC midnight.`,
          proposal: {
            action: 'wait_cooldown',
            args: { durationHours: hoursUntilReset(now) },
            reason: `Daily ${contextCheck.kind} quota reached; waiting until the quota resets at midnight UTC.`,
            by: 'controller',
          },
        });
      }
      const cancelled = contextCheck.code === 'DO_NOT_CONTACT';
      return leave(
        { status: cancelled ? 'Cancelled' : 'Failed', lastError: contextCheck.code, output: { problems: contextCheck.problems } },
        { status: 'failed', code: contextCheck.code, message: `${cancelled ? 'Cancelled' : 'Not run'}: ${problems}.` },
      );
    }

    const planned = await this.plan(cycle, context, entry);
    if (!planned.ok) {
      if (planned.code === 'NO_VALID_ACTION' && claim.attempts >= MAX_TASK_ATTEMPTS) {
        return leave(
          { status: 'Failed', lastError: 'NO_VALID_ACTION', output: { problems: planned.problems } },
          {
            status: 'failed',
            code: 'NO_VALID_ACTION',
            message: `No valid action after ${claim.attempts} attempts.`,
            validation: planned.validation,
          },
        );
      }
      // The model could not be reached, or answered badly: the task waits and is tried again.
      return leave(
        { status: 'Pending', nextRunAt: new Date(now.getTime() + retryDelayMs(claim.attempts)), lastError: planned.code },
        { status: 'deferred', code: planned.code, message: planned.message, validation: planned.validation },
      );
    }
    const { proposal, validation } = planned;
    const proposed: CycleOutcome['proposal'] = { action: proposal.action, args: proposal.args, reason: proposal.reason, by: 'model' };

    switch (proposal.action) {
      case 'wait_cooldown': {
        const until = new Date(now.getTime() + Math.round(proposal.args.durationHours * 3_600_000));
        await this.audit.record(entry(proposal.action, proposal.args), { status: 'succeeded', result: { until }, durationMs: 0 });
        return leave(
          { status: 'Pending', nextRunAt: until, lastError: null },
          { status: 'deferred', code: null, message: `Waiting ${proposal.args.durationHours} hours.`, proposal: proposed, validation },
        );
      }
      case 'refresh_session':
        return this.refreshSession(claim, proposal.args.secretName, entry(proposal.action, proposal.args), (release, result) =>
          leave(release, { ...result, proposal: proposed, validation }),
        );
      case 'complete_campaign':
        // fitProblems refuses it while tasks are open, so a task cycle never gets here.
        throw new Error('complete_campaign in a task cycle');
      default:
        return this.act(cycle, claim, context, proposal, entry(proposal.action, proposal.args), { proposed, validation, view });
    }
  }

  /** Asks for ONE action; every refused proposal is audited with its reasons. */
  private async plan(
    cycle: Cycle,
    context: CycleContext,
    entry: (tool: string, args: unknown) => ToolAuditEntry,
  ): Promise<
    | { ok: true; proposal: Proposal; validation: CycleOutcome['validation'] }
    | { ok: false; code: CycleCode; message: string; problems: readonly string[]; validation: CycleOutcome['validation'] }
  > {
    const refused: { text: string | null; problems: readonly string[] }[] = [];
    const check = (value: unknown) => {
      const checked = checkProposal(value);
      if (!checked.ok) return checked;
      const misfit = fitProblems(checked.value, context);
      return misfit.length ? { ok: false as const, problems: misfit } : checked;
    };
    const signal = AbortSignal.timeout(this.settings.planTimeoutMs);
    try {
      const answer = await completeJson(
        this.model,
        {
          systemPrompt: OUTREACH_SYSTEM_PROMPT,
          messages: [{ role: 'user', content: outreachUserPrompt(context, cycle.started) }],
          options: PLANNING,
          signal,
        },
        check,
        (text, problems) => refused.push({ text, problems }),
      );
      cycle.usage = answer.usage;
      cycle.planningAttempts = answer.attempts;
      await this.auditRefusals(refused, entry);
      return {
        ok: true,
        proposal: answer.value,
        validation: { accepted: true, attempts: answer.attempts, problems: refused.flatMap((r) => r.problems) },
      };
    } catch (error) {
      await this.auditRefusals(refused, entry);
      cycle.planningAttempts = Math.max(1, refused.length);
      if (error instanceof LanguageModelInvalidJsonError) {
        cycle.failureClass = 'NO_VALID_ACTION';
        return {
          ok: false,
          code: 'NO_VALID_ACTION',
          message: `The model proposed no valid action: ${error.problems.join('; ')}.`,
          problems: error.problems,
          validation: { accepted: false, attempts: refused.length, problems: refused.flatMap((r) => r.problems) },
        };
      }
      if (!(error instanceof LanguageModelError) && !(error instanceof Error && error.name === 'AbortError')) throw error;
      cycle.failureClass = classifyModelFailure(error);
      cycle.providerRequestId = error instanceof LanguageModelError ? (error.requestId ?? null) : null;
      this.logger.warn({ msg: 'outreach planner unavailable', decisionId: cycle.decisionId, failureClass: cycle.failureClass, err: error });
      return {
        ok: false,
        code: 'MODEL_UNAVAILABLE',
        message: 'The language model could not be reached; the task will be tried again.',
        problems: [],
        validation: null,
      };
    }
  }

  private async auditRefusals(
    refused: readonly { text: string | null; problems: readonly string[] }[],
    entry: (tool: string, args: unknown) => ToolAuditEntry,
  ): Promise<void> {
    for (const refusal of refused) {
      const parsed = parseObject(refusal.text);
      const tool =
        typeof parsed?.action === 'string' && Object.hasOwn(ACTION_CONTRACTS, parsed.action) ? parsed.action : 'invalid_proposal';
      await this.audit.record(entry(tool, parsed ?? { text: (refusal.text ?? '').slice(0, 2000) }), {
        status: 'rejected',
        errorCode: 'INVALID_PROPOSAL',
        result: { problems: refusal.problems },
        durationMs: 0,
      });
    }
  }

  private async refreshSession(
    claim: ClaimedTask,
    secretName: string,
    audited: ToolAuditEntry,
    leave: (
      release: TaskRelease,
      result: { status: CycleStatus; code: CycleCode | null; message: string; execution: CycleOutcome['execution'] },
    ) => Promise<CycleOutcome>,
  ): Promise<CycleOutcome> {
    const pendingSeq = await this.audit.recordPending(audited);
    const started = this.clock.now().getTime();
    try {
      await this.linkedin.useSession(await this.secrets.fetch(secretName));
    } catch (error) {
      if (!(error instanceof SecretNotFoundError)) throw error;
      const durationMs = this.clock.now().getTime() - started;
      await this.audit.recordOutcome(pendingSeq, audited, { status: 'failed', errorCode: 'SECRET_NOT_FOUND', durationMs });
      const giveUp = claim.attempts >= MAX_TASK_ATTEMPTS;
      return leave(
        giveUp
          ? { status: 'Failed', lastError: 'SECRET_NOT_FOUND' }
          : { status: 'Pending', nextRunAt: new Date(started + retryDelayMs(claim.attempts)), lastError: 'SECRET_NOT_FOUND' },
        {
          status: giveUp ? 'failed' : 'deferred',
          code: 'SECRET_NOT_FOUND',
          message: `There is no secret named ${secretName}.`,
          execution: { status: 'failed', idempotencyKey: null, durationMs, errorCode: 'SECRET_NOT_FOUND', result: null },
        },
      );
    }
    const durationMs = this.clock.now().getTime() - started;
    // The secret itself is never recorded.
    await this.audit.recordOutcome(pendingSeq, audited, { status: 'succeeded', result: { secretName, refreshed: true }, durationMs });
    return leave(
      { status: 'Pending', nextRunAt: this.clock.now(), lastError: null },
      {
        status: 'deferred',
        code: null,
        message: 'Fetched a fresh session; the task runs again next cycle.',
        execution: { status: 'succeeded', idempotencyKey: null, durationMs, errorCode: null, result: { secretName, refreshed: true } },
      },
    );
  }

  /** Reserve and audit, act with a deadline, verify, record: the heart of the controller. */
  private async act(
    cycle: Cycle,
    claim: ClaimedTask,
    context: TaskCycleContext,
    proposal: ChannelAction,
    audited: ToolAuditEntry,
    shown: {
      proposed: CycleOutcome['proposal'];
      validation: CycleOutcome['validation'];
      view: (release: TaskRelease) => CycleOutcome['task'];
    },
  ): Promise<CycleOutcome> {
    const now = cycle.started;
    const day = utcDay(now);
    const kind = TASK_ACTION[context.task.type].kind;
    const begun = await this.store.begin({
      claim,
      decisionId: cycle.decisionId,
      proposal,
      kind,
      channel: this.channels.nameFor(proposal),
      idempotencyMaterial: idempotencyMaterial(claim.taskId, claim.attempts, proposal),
      limits: { campaign: context.quota[kind].campaign.limit, owner: context.quota[kind].owner.limit },
      day,
      now: this.clock.now(),
      leaseMs: this.settings.leaseMs,
      audit: audited,
    });
    const base = { proposal: shown.proposed, validation: shown.validation };
    if (begun.status === 'lease_lost') {
      return outcome({
        ...base,
        status: 'failed',
        code: 'LEASE_LOST',
        message: 'The claim on this task expired before acting; nothing was done.',
      });
    }
    if (begun.status === 'duplicate' || begun.status === 'quota_exceeded') {
      const quota = begun.status === 'quota_exceeded';
      await this.audit.record(audited, {
        status: 'rejected',
        errorCode: quota ? 'QUOTA_EXCEEDED' : 'DUPLICATE_ACTION',
        result: quota ? { scope: begun.scope } : { idempotencyKey: begun.idempotencyKey },
        durationMs: 0,
      });
      const release: TaskRelease = quota
        ? (await this.deferForQuota(claim, kind, begun.scope, now)).release
        : { status: 'Failed', lastError: 'DUPLICATE_ACTION' };
      await this.store.releaseTask(claim, release, this.clock.now());
      return outcome({
        ...base,
        status: quota ? 'deferred' : 'failed',
        code: quota ? 'QUOTA_EXCEEDED' : 'DUPLICATE_ACTION',
        message: quota
          ? `The ${begun.scope}'s daily ${kind} quota was used up meanwhile; waiting until midnight UTC.`
          : 'This exact action was already taken.',
        task: shown.view(release),
      });
    }

    const { actionId, idempotencyKey, pendingSeq } = begun;
    const started = this.clock.now().getTime();
    const action = { actionId, pendingSeq, idempotencyKey, audited, started, day };
    let record: ChannelRecord | null = null;
    let failure: ChannelError | null = null;
    try {
      record = await this.channels.perform(proposal, idempotencyKey, AbortSignal.timeout(this.settings.actionTimeoutMs));
    } catch (error) {
      this.logger.warn({
        msg: 'outreach action failed',
        decisionId: cycle.decisionId,
        action: proposal.action,
        idempotencyKey,
        err: error,
      });
      failure = error instanceof ChannelError ? error : new ChannelError('UNAVAILABLE', describe(error), 'maybe', { cause: error });
      if (failure.performed === 'maybe') {
        // It may have happened: ask the channel rather than guess, and never re-send.
        const found = await this.channels.lookup(proposal, idempotencyKey);
        if (found !== null && found !== 'unknowable') record = found;
        else if (found === 'unknowable') {
          return this.finishAction(claim, shown, base, action, {
            status: 'unknown',
            errorCode: failure.code,
            result: { error: failure.message },
            task: {
              status: 'Failed',
              lastError: 'UNKNOWN_OUTCOME',
              output: withSentMessage({ error: failure.message, review: 'the action may have happened' }, proposal),
            },
            cycle: {
              status: 'unknown',
              code: 'CHANNEL_ERROR',
              message: `The ${proposal.action} may or may not have happened (${failure.code}); a person should review it.`,
            },
          });
        }
      }
    }

    if (!record) {
      const error = failure!;
      const retry = error.retryable && claim.attempts < MAX_TASK_ATTEMPTS;
      const nextRunAt =
        error.code === 'SESSION_EXPIRED' ? this.clock.now() : new Date(this.clock.now().getTime() + retryDelayMs(claim.attempts));
      return this.finishAction(claim, shown, base, action, {
        status: 'failed',
        errorCode: error.code,
        result: { error: error.message },
        refundQuota: true,
        task: retry
          ? { status: 'Pending', nextRunAt, lastError: error.code }
          : { status: 'Failed', lastError: error.code, output: { error: error.message } },
        cycle: {
          status: retry ? 'deferred' : 'failed',
          code: 'CHANNEL_ERROR',
          message: `${proposal.action} failed: ${error.code}. ${retry ? 'It will be tried again.' : 'The task is failed.'}`,
        },
      });
    }

    // After a failure, the record can only have come from the look-up by key.
    const verification = await this.channels.verify(proposal, idempotencyKey, record, failure !== null);
    return this.finishAction(
      claim,
      shown,
      base,
      action,
      verification.verified
        ? {
            status: 'succeeded',
            errorCode: null,
            result: verification.output,
            verification,
            task: { status: 'Completed', output: withSentMessage(verification.output, proposal), lastError: null },
            cycle: { status: 'completed', code: null, message: `${proposal.action} done and verified: ${verification.detail}.` },
          }
        : {
            status: 'failed',
            errorCode: 'VERIFICATION_FAILED',
            result: { ...verification.output, detail: verification.detail },
            verification,
            task: {
              status: 'Failed',
              lastError: 'VERIFICATION_FAILED',
              output: withSentMessage({ ...verification.output, detail: verification.detail }, proposal),
            },
            cycle: {
              status: 'failed',
              code: 'VERIFICATION_FAILED',
              message: `${proposal.action} could not be verified: ${verification.detail}.`,
            },
          },
    );
  }

  /**
   * A quota of `kind` is used up in `scope` for today: counts the rejection and moves every
   * waiting task of that kind to the next UTC midnight. @returns where this task goes, and
   * how many others were moved.
   */
  private async deferForQuota(
    claim: ClaimedTask,
    kind: ActionKind,
    scope: QuotaScope,
    now: Date,
  ): Promise<{ release: TaskRelease; deferred: number }> {
    this.metrics.quotaRejection(kind, scope);
    const until = nextUtcMidnight(now);
    const deferred = await this.store.deferKind({ ownerId: claim.ownerId, campaignId: claim.campaignId, scope, kind, until, now });
    return { release: { status: 'Pending', nextRunAt: until, lastError: 'QUOTA_EXCEEDED' }, deferred };
  }

  private async finishAction(
    claim: ClaimedTask,
    shown: { view: (release: TaskRelease) => CycleOutcome['task'] },
    base: Pick<CycleOutcome, 'proposal' | 'validation'>,
    action: { actionId: string; pendingSeq: number; idempotencyKey: string; audited: ToolAuditEntry; started: number; day: string },
    result: {
      status: 'succeeded' | 'failed' | 'unknown';
      /** It certainly did not happen: its quota slot is given back. */
      refundQuota?: true;
      errorCode: string | null;
      result: unknown;
      verification?: { verified: boolean; detail: string };
      task: TaskRelease;
      cycle: { status: CycleStatus; code: CycleCode | null; message: string };
    },
  ): Promise<CycleOutcome> {
    const now = this.clock.now();
    const durationMs = now.getTime() - action.started;
    this.metrics.toolCall(action.audited.tool, result.status, durationMs / 1000);
    await this.store.finish({
      actionId: action.actionId,
      taskId: claim.taskId,
      pendingSeq: action.pendingSeq,
      audit: action.audited,
      outcome: { status: result.status, result: result.result, errorCode: result.errorCode ?? undefined, durationMs },
      task: result.task,
      refundQuota: result.refundQuota ? { day: action.day } : null,
      now,
    });
    return outcome({
      ...base,
      ...result.cycle,
      task: shown.view(result.task),
      execution: {
        status: result.status,
        idempotencyKey: action.idempotencyKey,
        durationMs,
        errorCode: result.errorCode,
        result: result.result,
      },
      verification: result.verification ? { verified: result.verification.verified, detail: result.verification.detail } : null,
    });
  }

  /** No task is left: the model is asked for complete_campaign, which is checked and done. */
  private async wrapUp(cycle: Cycle): Promise<CycleOutcome> {
    const now = cycle.started;
    const context: WrapUpContext | null = await this.store.loadWrapUpContext(cycle.campaignId, {
      day: utcDay(now),
      ownerLimits: this.settings.ownerDailyLimits,
    });
    if (!context || !checkContext(context).ok) {
      return outcome({ status: 'idle', code: 'NO_TASK', message: 'The campaign changed meanwhile; nothing to do.' });
    }
    const entry = (tool: string, args: unknown): ToolAuditEntry => ({
      source: 'outreach',
      actorId: cycle.ownerId,
      campaignId: cycle.campaignId,
      decisionId: cycle.decisionId,
      tool,
      arguments: (args ?? {}) as Record<string, unknown>,
      securityEvents: [],
    });
    const planned = await this.plan(cycle, context, entry);
    if (!planned.ok) return outcome({ status: 'deferred', code: planned.code, message: planned.message, validation: planned.validation });
    const { proposal } = planned;
    const audited = entry(proposal.action, proposal.args);
    const completed = await this.store.completeCampaign(cycle.campaignId, this.clock.now());
    await this.audit.record(
      audited,
      completed
        ? { status: 'succeeded', result: { campaignId: cycle.campaignId, status: 'completed' }, durationMs: 0 }
        : { status: 'rejected', errorCode: 'INVALID_CONTEXT', result: { problems: ['tasks were added meanwhile'] }, durationMs: 0 },
    );
    return outcome({
      status: completed ? 'campaign_completed' : 'idle',
      code: completed ? null : 'INVALID_CONTEXT',
      message: completed
        ? `Campaign ${context.campaign.name} is completed: ${context.finishedTasks} tasks finished.`
        : 'Tasks were added meanwhile; the campaign goes on.',
      proposal: { action: proposal.action, args: proposal.args, reason: proposal.reason, by: 'model' },
      validation: planned.validation,
    });
  }
}

function outcome(fields: Partial<CycleOutcome> & Pick<CycleOutcome, 'status' | 'message'>): CycleOutcome {
  return {
    code: null,
    decisionId: null,
    campaignId: null,
    task: null,
    proposal: null,
    validation: null,
    execution: null,
    verification: null,
    ...fields,
  };
}

function parseObject(text: string | null): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
