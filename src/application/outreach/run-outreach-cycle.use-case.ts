import { Injectable } from '@nestjs/common';
import { costOf } from '../../domain/agent/pricing';
import { REFUSED_CLAIM_RETRY_MS } from '../../domain/outreach/planner-claims';
import { checkContext, type ContextCheck } from '../../domain/outreach/planning';
import { MAX_TASK_ATTEMPTS, retryDelayMs, TASK_ACTION } from '../../domain/outreach/outreach-task';
import { hoursUntil, KIND_LABELS, utcDay } from '../../domain/outreach/quota';
import { AuditLog } from '../agent/ports/audit-log.port';
import { AgentSettings } from '../chat/agent-settings';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Logger } from '../shared/ports/logger.port';
import { Metrics } from '../shared/ports/metrics.port';
import { genAiProviderName, NO_TRACER, Tracer } from '../shared/ports/tracer.port';
import { type AuditEntryFor, type Cycle, outcome } from './cycle';
import type { CycleOutcome, CycleStatus } from './cycle-outcome';
import { OutreachActionPlanner } from './outreach-action-planner';
import { OutreachActionRunner } from './outreach-action-runner';
import { ownerLimitsOf, OutreachSettings } from './outreach-settings';
import {
  OutreachCycleStore,
  type ClaimedTask,
  type ClaimedWork,
  type OpenedDecision,
  type OutreachDecision,
  type TaskCycleContext,
  type TaskRelease,
  type WrapUpContext,
} from './ports/outreach-cycle-store.port';

/** `gen_ai.agent.name` of an outreach cycle's spans. */
const OUTREACH_PLANNER = 'outreach_planner';

/** Leaves the claimed task as `release` says, with the cycle's decision row, and answers `result` with the task's view. */
type Leave = (release: TaskRelease, result: Omit<Partial<CycleOutcome>, 'task'> & { status: CycleStatus; message: string }) => CycleOutcome;

/**
 * One outreach cycle: claim one due task, reload its state, check the context, plan ONE
 * action (OutreachActionPlanner), and act on it (OutreachActionRunner); or, when nothing is
 * left, complete the campaign. Every cycle writes its decision row. Nothing is remembered
 * between cycles.
 */
@Injectable()
export class RunOutreachCycleUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: OutreachCycleStore,
    private readonly planner: OutreachActionPlanner,
    private readonly runner: OutreachActionRunner,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    private readonly agentSettings: AgentSettings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly metrics: Metrics,
    logger: Logger,
    private readonly tracer: Tracer = NO_TRACER,
  ) {
    this.logger = logger.withContext(RunOutreachCycleUseCase.name);
  }

  /** Works the most overdue task (of `campaignId`, if given), or completes a finished campaign. */
  async run(input: { workerId: string; campaignId?: string }): Promise<CycleOutcome> {
    const now = this.clock.now();
    // The cycle's decision row is opened as pending by the statement that claims its task (or
    // reads the campaign it wraps up), before the model is asked; the cycle's end settles it.
    const decision: OpenedDecision = { id: this.ids.next(), ...this.planner.modelName, createdAt: now };
    const claimed = await this.store.claimTask({
      workerId: input.workerId,
      now,
      leaseMs: this.settings.leaseMs,
      campaignId: input.campaignId,
      day: utcDay(now),
      ownerLimits: ownerLimitsOf(this.settings),
      secretNames: this.settings.secretNames,
      decision,
    });
    if (claimed) {
      const { claim } = claimed;
      return this.recorded(this.newCycle(decision.id, claim.campaignId, claim.ownerId, now), (cycle) => this.workTask(cycle, claimed));
    }
    const finished = await this.store.findFinishedCampaign({ campaignId: input.campaignId });
    if (finished) {
      const cycle = this.newCycle(decision.id, finished.campaignId, finished.ownerId, now);
      return this.recorded(cycle, () => this.wrapUp(cycle, decision));
    }
    return outcome({ status: 'idle', code: 'NO_TASK', message: 'No task is due and no campaign is ready to complete.' });
  }

  private newCycle(decisionId: string, campaignId: string, ownerId: string, started: Date): Cycle {
    return {
      decisionId,
      started,
      campaignId,
      ownerId,
      usage: { promptTokens: 0, completionTokens: 0 },
      planningAttempts: 0,
      failureClass: null,
      providerRequestId: null,
      settlement: null,
    };
  }

  /**
   * Runs a cycle and writes its decision-log row, whatever happened, in one `invoke_agent`
   * span (GenAI semantic conventions). An idle poll, which claims nothing, makes no span.
   */
  private recorded(cycle: Cycle, work: (cycle: Cycle) => Promise<CycleOutcome>): Promise<CycleOutcome> {
    const { provider, model } = this.planner.modelName;
    const attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': OUTREACH_PLANNER,
      'gen_ai.provider.name': genAiProviderName(provider),
      'gen_ai.request.model': model,
      'bridle.decision.id': cycle.decisionId,
      'bridle.campaign.id': cycle.campaignId,
    };
    return this.tracer.inSpan(`invoke_agent ${OUTREACH_PLANNER}`, { attributes }, async (span) => {
      const result = await this.recordedCycle(cycle, work);
      span.set({ 'bridle.cycle.status': result.status, 'bridle.cycle.code': result.code ?? undefined });
      if (cycle.failureClass) span.fail(cycle.failureClass);
      return result;
    });
  }

  private async recordedCycle(cycle: Cycle, work: (cycle: Cycle) => Promise<CycleOutcome>): Promise<CycleOutcome> {
    const result = { ...(await work(cycle)), decisionId: cycle.decisionId, campaignId: cycle.campaignId };
    const pricing = this.agentSettings.pricing;
    const durationMs = this.clock.now().getTime() - cycle.started.getTime();
    const decision: OutreachDecision = {
      id: cycle.decisionId,
      ownerId: cycle.ownerId,
      campaignId: cycle.campaignId,
      taskId: result.task?.id ?? null,
      decisionType: result.proposal?.action ?? result.code ?? result.status,
      status: result.status,
      iterations: cycle.planningAttempts,
      ...this.planner.modelName,
      promptTokens: cycle.usage.promptTokens,
      completionTokens: cycle.usage.completionTokens,
      cost: pricing && cycle.planningAttempts > 0 ? costOf(cycle.usage, pricing) : null,
      durationMs,
      failureClass: cycle.failureClass,
      providerRequestId: cycle.providerRequestId,
      createdAt: cycle.started,
    };
    // The cycle's last write to its task goes with its decision row: one statement, one commit.
    const settlement = cycle.settlement;
    if (settlement?.kind === 'action') await this.store.finish({ ...settlement.action, decision });
    else if (settlement?.kind === 'release') await this.store.releaseTask(settlement.claim, settlement.release, settlement.now, decision);
    else await this.store.recordDecision(decision);
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

  private async workTask(cycle: Cycle, { claim, loaded }: ClaimedWork): Promise<CycleOutcome> {
    const now = cycle.started;
    const { context, review } = loaded;
    const entry: AuditEntryFor = (tool, args) => ({
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
    const leave: Leave = (release, result) => {
      cycle.settlement = { kind: 'release', claim, release, now: this.clock.now() };
      return outcome({ ...result, task: view(release) });
    };

    const contextCheck = checkContext(context, now);
    // An approved draft runs as its owner reviewed it, without the model, on the slot it has
    // held since it was drafted (so today's used-up quota does not stop it), through begin.
    const approved = contextCheck.ok || contextCheck.code === 'QUOTA_EXCEEDED' ? review.approvedDraft : null;
    if (approved) {
      const { proposal } = approved;
      return this.runner.act(
        cycle,
        claim,
        context,
        proposal,
        entry(proposal.action, proposal.args),
        { proposed: { action: proposal.action, args: proposal.args, reason: proposal.reason, by: 'model' }, validation: null, view },
        { approved },
      );
    }
    // The controller's own finding ends the cycle before the model is asked. A model's claim about
    // that state (QUOTA_EXCEEDED, INVALID_CONTEXT) is judged on the same state, which the model was
    // shown: one the state confirms ends the cycle the same way (its audit row says so already);
    // one it contradicts changes nothing, and the task runs again soon, when the controller checks
    // afresh (a limit reached meanwhile then parks it as above).
    const stop = (check: Exclude<ContextCheck, { ok: true }>, audited: boolean, validation: CycleOutcome['validation'] = null) =>
      this.stopForContext(check, { claim, context, entry, leave, now, audited, validation });
    if (!contextCheck.ok) return stop(contextCheck, false);

    const planned = await this.planner.plan(cycle, context, entry);
    if (!planned.ok) {
      const { claim: verdict } = planned;
      if (verdict?.holds) return stop(verdict.check, true, planned.validation);
      if (verdict) {
        const at = new Date(now.getTime() + REFUSED_CLAIM_RETRY_MS);
        return leave(
          { status: 'Pending', nextRunAt: at, lastError: 'CLAIM_REFUSED' },
          {
            status: 'deferred',
            code: 'CLAIM_REFUSED',
            message: `${planned.message} The task runs again at ${at.toISOString()}.`,
            validation: planned.validation,
          },
        );
      }
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
        return this.runner.refreshSession(claim, proposal.args.secretName, entry(proposal.action, proposal.args), (release, result) =>
          leave(release, { ...result, proposal: proposed, validation }),
        );
      case 'complete_campaign':
        // fitProblems refuses it while tasks are open, so a task cycle never gets here.
        throw new Error('complete_campaign in a task cycle');
      default:
        return this.runner.act(
          cycle,
          claim,
          context,
          proposal,
          entry(proposal.action, proposal.args),
          { proposed, validation, view },
          { review },
        );
    }
  }

  /**
   * Ends a task cycle on what the controller found wrong with the task's context: INVALID_CONTEXT
   * fails the task, DO_NOT_CONTACT cancels it (and the lead's other pending tasks), QUOTA_EXCEEDED
   * parks it, and every waiting task of that kind in that scope, until the limit that binds
   * has room. Audited as rejected with the code, unless the row that led here was written already.
   */
  private async stopForContext(
    check: Exclude<ContextCheck, { ok: true }>,
    task: {
      readonly claim: ClaimedTask;
      readonly context: TaskCycleContext;
      readonly entry: AuditEntryFor;
      readonly leave: Leave;
      readonly now: Date;
      readonly audited: boolean;
      readonly validation: CycleOutcome['validation'];
    },
  ): Promise<CycleOutcome> {
    const { claim, context, entry, leave, now, validation } = task;
    const problems = check.problems.join('; ');
    if (!task.audited) {
      await this.audit.record(entry(TASK_ACTION[context.task.type].action, { profileUrl: context.lead.linkedinUrl }), {
        status: 'rejected',
        errorCode: check.code,
        result: { problems: check.problems },
        durationMs: 0,
      });
    }
    if (check.code === 'QUOTA_EXCEEDED') {
      // The limit that binds names when its next slot frees: midnight for a day, the oldest counted day's exit for a week.
      const { block } = check;
      const { release, deferred } = await this.runner.deferForQuota(claim, block, now);
      return leave(release, {
        status: 'deferred',
        code: 'QUOTA_EXCEEDED',
        message: `Quota exhausted: ${problems}. This and ${deferred} other waiting tasks resume at ${block.until.toISOString()}.`,
        proposal: {
          action: 'wait_cooldown',
          args: { durationHours: hoursUntil(now, block.until) },
          reason: `The ${block.scope}'s ${block.window === 'day' ? 'daily' : 'weekly'} ${KIND_LABELS[block.kind]} limit is reached; waiting for its next slot.`,
          by: 'controller',
        },
        validation,
      });
    }
    const cancelled = check.code === 'DO_NOT_CONTACT';
    return leave(
      { status: cancelled ? 'Cancelled' : 'Failed', lastError: check.code, output: { problems: check.problems } },
      { status: 'failed', code: check.code, message: `${cancelled ? 'Cancelled' : 'Not run'}: ${problems}.`, validation },
    );
  }

  /** No task is left: the model is asked for complete_campaign, which is checked and done. */
  private async wrapUp(cycle: Cycle, decision: OpenedDecision): Promise<CycleOutcome> {
    const now = cycle.started;
    const context: WrapUpContext | null = await this.store.loadWrapUpContext(cycle.campaignId, {
      day: utcDay(now),
      ownerLimits: ownerLimitsOf(this.settings),
      decision,
    });
    if (!context || !checkContext(context, now).ok) {
      return outcome({ status: 'idle', code: 'NO_TASK', message: 'The campaign changed meanwhile; nothing to do.' });
    }
    const entry: AuditEntryFor = (tool, args) => ({
      source: 'outreach',
      actorId: cycle.ownerId,
      campaignId: cycle.campaignId,
      decisionId: cycle.decisionId,
      tool,
      arguments: (args ?? {}) as Record<string, unknown>,
      securityEvents: [],
    });
    const planned = await this.planner.plan(cycle, context, entry);
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
