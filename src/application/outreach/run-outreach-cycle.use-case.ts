import { Injectable } from '@nestjs/common';
import { costOf } from '../../domain/agent/pricing';
import { isBuiltIn, type Proposal } from '../../domain/outreach/actions';
import { REFUSED_CLAIM_RETRY_MS } from '../../domain/outreach/planner-claims';
import { checkContext, type ContextCheck } from '../../domain/outreach/planning';
import { MAX_TASK_ATTEMPTS, retryDelayMs } from '../../domain/outreach/outreach-task';
import { hoursUntil, kindLabel, utcDay } from '../../domain/outreach/quota';
import { AuditLog } from '../audit/ports/audit-log.port';
import { AgentSettings } from '../agent/agent-settings';
import { Clock } from '../shared/ports/clock.port';
import { IdGenerator } from '../shared/ports/id-generator.port';
import { Logger } from '../shared/ports/logger.port';
import { Metrics } from '../shared/ports/metrics.port';
import { genAiProviderName, NO_TRACER, Tracer } from '../shared/ports/tracer.port';
import { auditEntry, type CycleEnd, type CycleScope, leave, outcome, type Shown, type StepEnd, type TaskScope, UNPLANNED } from './cycle';
import type { CycleOutcome } from './cycle-outcome';
import { OutreachActionPlanner, type PlanResult } from './outreach-action-planner';
import { OutreachActionRunner } from './outreach-action-runner';
import { QuotaDeferral } from './outreach-quota-deferral';
import { ownerLimitsOf, OutreachSettings } from './outreach-settings';
import {
  OutreachCycleStore,
  type ApprovedDraft,
  type OpenedDecision,
  type OutreachDecision,
  type TaskReview,
  type WrapUpContext,
} from './ports/outreach-cycle-store.port';

/** `gen_ai.agent.name` of an outreach cycle's spans. */
const OUTREACH_PLANNER = 'outreach_planner';

/** A planning step that found no action to take. */
type Unplanned = Extract<PlanResult, { ok: false }>;

/** The cycle's end after a step that did not ask the model. */
function unplanned(step: StepEnd): CycleEnd {
  return { ...step, decision: UNPLANNED };
}

/**
 * One outreach cycle: claim one due task, reload its state, check the context, plan ONE
 * action (OutreachActionPlanner), and act on it (OutreachActionRunner); or, when nothing is
 * left, complete the campaign. Each step reads the cycle's scope and returns its end (its
 * outcome, its settlement, and what the decision row records of the model); the cycle writes
 * its decision row with the last step's settlement. Nothing is remembered between cycles.
 */

/** Said when the campaign was to be completed but has tasks again. */
const INVALID_WRAP_UP = 'Tasks were added meanwhile; the campaign goes on.';
@Injectable()
export class RunOutreachCycleUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: OutreachCycleStore,
    private readonly planner: OutreachActionPlanner,
    private readonly runner: OutreachActionRunner,
    private readonly quota: QuotaDeferral,
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
    const opened: OpenedDecision = { id: this.ids.next(), ...this.planner.modelName, createdAt: now };
    const claimed = await this.store.claimTask({
      workerId: input.workerId,
      now,
      leaseMs: this.settings.leaseMs,
      campaignId: input.campaignId,
      day: utcDay(now),
      ownerLimits: ownerLimitsOf(this.settings),
      secretNames: this.settings.secretNames,
      decision: opened,
    });
    if (claimed) {
      const { claim, loaded } = claimed;
      const task: TaskScope = {
        decisionId: opened.id,
        started: now,
        campaignId: claim.campaignId,
        ownerId: claim.ownerId,
        taskId: claim.taskId,
        claim,
        context: loaded.context,
      };
      return this.recorded(task, () => this.workTask(task, loaded.review));
    }
    const finished = await this.store.findFinishedCampaign({ campaignId: input.campaignId });
    if (finished) {
      const scope: CycleScope = {
        decisionId: opened.id,
        started: now,
        campaignId: finished.campaignId,
        ownerId: finished.ownerId,
        taskId: null,
      };
      return this.recorded(scope, () => this.wrapUp(scope, opened));
    }
    return outcome({ status: 'idle', code: 'NO_TASK', message: 'No task is due and no campaign is ready to complete.' });
  }

  /**
   * Runs a cycle and writes its decision-log row, whatever happened, in one `invoke_agent`
   * span (GenAI semantic conventions). An idle poll, which claims nothing, makes no span.
   */
  private recorded(scope: CycleScope, work: () => Promise<CycleEnd>): Promise<CycleOutcome> {
    const { provider, model } = this.planner.modelName;
    const attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': OUTREACH_PLANNER,
      'gen_ai.provider.name': genAiProviderName(provider),
      'gen_ai.request.model': model,
      'bridle.decision.id': scope.decisionId,
      'bridle.campaign.id': scope.campaignId,
    };
    return this.tracer.inSpan(`invoke_agent ${OUTREACH_PLANNER}`, { attributes }, async (span) => {
      const end = await work();
      const result = await this.close(scope, end);
      span.set({ 'bridle.cycle.status': result.status, 'bridle.cycle.code': result.code ?? undefined });
      if (end.decision.failureClass) span.fail(end.decision.failureClass);
      return result;
    });
  }

  /** Ends the cycle: its decision row, written with its settlement (the task's last write) in one statement. */
  private async close(scope: CycleScope, end: CycleEnd): Promise<CycleOutcome> {
    const result = { ...end.outcome, decisionId: scope.decisionId, campaignId: scope.campaignId };
    const { usage, planningAttempts, failureClass, providerRequestId } = end.decision;
    const price = this.agentSettings.prices?.priceOf(this.planner.modelName.model) ?? null;
    const durationMs = this.clock.now().getTime() - scope.started.getTime();
    const decision: OutreachDecision = {
      id: scope.decisionId,
      ownerId: scope.ownerId,
      campaignId: scope.campaignId,
      taskId: result.task?.id ?? null,
      decisionType: result.proposal?.action ?? result.code ?? result.status,
      status: result.status,
      iterations: planningAttempts,
      ...this.planner.modelName,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cost: price && planningAttempts > 0 ? costOf(usage, price) : null,
      durationMs,
      failureClass,
      providerRequestId,
      createdAt: scope.started,
    };
    const { settlement } = end;
    if (settlement?.kind === 'action') await this.store.finish({ ...settlement.action, decision });
    else if (settlement?.kind === 'release') await this.store.releaseTask(settlement.claim, settlement.release, settlement.now, decision);
    else await this.store.recordDecision(decision);
    this.metrics.outreachCycle(result.status, result.code, durationMs / 1000);
    this.logger.info({
      msg: 'outreach cycle',
      decisionId: scope.decisionId,
      campaignId: scope.campaignId,
      taskId: result.task?.id,
      status: result.status,
      code: result.code,
    });
    return result;
  }

  /**
   * A claimed task's cycle. An approved draft runs as its owner reviewed it, without the model,
   * on the slot it has held since it was drafted (so today's used-up quota does not stop it).
   * The controller's own finding ends the cycle before the model is asked; else the model plans
   * one action, and the cycle acts on it.
   */
  private async workTask(task: TaskScope, review: TaskReview): Promise<CycleEnd> {
    const contextCheck = checkContext(task.context, task.started, this.planner.actions);
    const approved = contextCheck.ok || contextCheck.code === 'QUOTA_EXCEEDED' ? review.approvedDraft : null;
    if (approved) return unplanned(await this.runApproved(task, approved));
    if (!contextCheck.ok) return unplanned(await this.stopForContext(task, contextCheck, { audited: false, validation: null }));
    const { result, decision } = await this.planner.plan(task, task.context);
    const end = result.ok ? await this.actOn(task, result.proposal, result.validation, review) : await this.unplannable(task, result);
    return { ...end, decision };
  }

  /** Runs an approved draft through the runner, on the slot and key its draft holds. */
  private runApproved(task: TaskScope, approved: ApprovedDraft): Promise<StepEnd> {
    const { proposal } = approved;
    const shown: Shown = {
      proposal: { action: proposal.action, args: proposal.args, reason: proposal.reason, by: 'model' },
      validation: null,
    };
    return this.runner.act(task, proposal, shown, { approved });
  }

  /** Acts on the model's checked proposal: waits, refreshes the session, or runs it on its channel (review permitting). */
  private actOn(task: TaskScope, proposal: Proposal, validation: CycleOutcome['validation'], review: TaskReview): Promise<StepEnd> {
    const shown: Shown = { proposal: { action: proposal.action, args: proposal.args, reason: proposal.reason, by: 'model' }, validation };
    // An action a channel added is a channel action: its contract meters the channel's kind.
    if (!isBuiltIn(proposal)) return this.runner.act(task, proposal, shown, { review });
    switch (proposal.action) {
      case 'wait_cooldown':
        return this.waitCooldown(task, proposal, shown);
      case 'refresh_session':
        return this.runner.refreshSession(task, proposal, shown);
      case 'complete_campaign':
        // fitProblems refuses it while tasks are open, so a task cycle never gets here.
        throw new Error('complete_campaign in a task cycle');
      default:
        return this.runner.act(task, proposal, shown, { review });
    }
  }

  /** wait_cooldown: audited as done at once; the task is due again when the wait ends. */
  private async waitCooldown(task: TaskScope, proposal: Extract<Proposal, { action: 'wait_cooldown' }>, shown: Shown): Promise<StepEnd> {
    const until = new Date(task.started.getTime() + Math.round(proposal.args.durationHours * 3_600_000));
    await this.audit.record(auditEntry(task, proposal.action, proposal.args), { status: 'succeeded', result: { until }, durationMs: 0 });
    return leave(task, { status: 'Pending', nextRunAt: until, lastError: null }, this.clock.now(), {
      status: 'deferred',
      code: null,
      message: `Waiting ${proposal.args.durationHours} hours.`,
      ...shown,
    });
  }

  /**
   * The model proposed no action. A model's claim about the controller's state (QUOTA_EXCEEDED,
   * INVALID_CONTEXT) is judged on the same state, which the model was shown: one the state
   * confirms ends the cycle as the controller's own finding would (its audit row says so
   * already); one it contradicts changes nothing, and the task runs again soon, when the
   * controller checks afresh. Otherwise the task waits and is tried again, or fails on its last attempt.
   */
  private unplannable(task: TaskScope, planned: Unplanned): Promise<StepEnd> | StepEnd {
    const { claim: verdict, validation } = planned;
    if (verdict?.holds) return this.stopForContext(task, verdict.check, { audited: true, validation });
    const now = task.started;
    if (verdict) {
      const at = new Date(now.getTime() + REFUSED_CLAIM_RETRY_MS);
      return leave(task, { status: 'Pending', nextRunAt: at, lastError: 'CLAIM_REFUSED' }, this.clock.now(), {
        status: 'deferred',
        code: 'CLAIM_REFUSED',
        message: `${planned.message} The task runs again at ${at.toISOString()}.`,
        validation,
      });
    }
    const { attempts } = task.claim;
    if (planned.code === 'NO_VALID_ACTION' && attempts >= MAX_TASK_ATTEMPTS) {
      return leave(task, { status: 'Failed', lastError: 'NO_VALID_ACTION', output: { problems: planned.problems } }, this.clock.now(), {
        status: 'failed',
        code: 'NO_VALID_ACTION',
        message: `No valid action after ${attempts} attempts.`,
        validation,
      });
    }
    // The model could not be reached, or answered badly: the task waits and is tried again.
    const release = { status: 'Pending', nextRunAt: new Date(now.getTime() + retryDelayMs(attempts)), lastError: planned.code } as const;
    return leave(task, release, this.clock.now(), { status: 'deferred', code: planned.code, message: planned.message, validation });
  }

  /**
   * Ends a task cycle on what the controller found wrong with the task's context: INVALID_CONTEXT
   * fails the task, DO_NOT_CONTACT cancels it (and the lead's other pending tasks), QUOTA_EXCEEDED
   * parks it, and every waiting task of that kind in that scope, until the limit that binds
   * has room. Audited as rejected with the code, unless the row that led here was written already.
   */
  private async stopForContext(
    task: TaskScope,
    check: Exclude<ContextCheck, { ok: true }>,
    { audited, validation }: { readonly audited: boolean; readonly validation: CycleOutcome['validation'] },
  ): Promise<StepEnd> {
    const { context } = task;
    const problems = check.problems.join('; ');
    const cancelled = check.code === 'DO_NOT_CONTACT';
    // What the audit row and the cycle's outcome say of the refusal.
    const said = `${check.code === 'QUOTA_EXCEEDED' ? 'Quota exhausted' : cancelled ? 'Cancelled' : 'Not run'}: ${problems}.`;
    if (!audited) {
      await this.audit.record(
        auditEntry(task, this.planner.actions.taskAction(context.task.type).action, { profileUrl: context.lead.linkedinUrl }),
        {
          status: 'rejected',
          errorCode: check.code,
          errorMessage: said,
          result: { problems: check.problems },
          durationMs: 0,
        },
      );
    }
    if (check.code === 'QUOTA_EXCEEDED') {
      // The limit that binds names when its next slot frees: midnight for a day, the oldest counted day's exit for a week.
      const { block } = check;
      const now = task.started;
      const { release, deferred } = await this.quota.defer(task.claim, block, now);
      return leave(task, release, this.clock.now(), {
        status: 'deferred',
        code: 'QUOTA_EXCEEDED',
        message: `${said} This and ${deferred} other waiting tasks resume at ${block.until.toISOString()}.`,
        proposal: {
          action: 'wait_cooldown',
          args: { durationHours: hoursUntil(now, block.until) },
          reason: `The ${block.scope}'s ${block.window === 'day' ? 'daily' : 'weekly'} ${kindLabel(block.kind)} limit is reached; waiting for its next slot.`,
          by: 'controller',
        },
        validation,
      });
    }
    return leave(
      task,
      { status: cancelled ? 'Cancelled' : 'Failed', lastError: check.code, output: { problems: check.problems } },
      this.clock.now(),
      {
        status: 'failed',
        code: check.code,
        message: said,
        validation,
      },
    );
  }

  /** No task is left: the model is asked for complete_campaign, which is checked and done. */
  private async wrapUp(scope: CycleScope, opened: OpenedDecision): Promise<CycleEnd> {
    const now = scope.started;
    const context: WrapUpContext | null = await this.store.loadWrapUpContext(scope.campaignId, {
      day: utcDay(now),
      ownerLimits: ownerLimitsOf(this.settings),
      decision: opened,
    });
    if (!context || !checkContext(context, now).ok) {
      return unplanned({
        outcome: outcome({ status: 'idle', code: 'NO_TASK', message: 'The campaign changed meanwhile; nothing to do.' }),
        settlement: null,
      });
    }
    const { result: planned, decision } = await this.planner.plan(scope, context);
    if (!planned.ok) {
      const result = outcome({ status: 'deferred', code: planned.code, message: planned.message, validation: planned.validation });
      return { outcome: result, settlement: null, decision };
    }
    const { proposal } = planned;
    const completed = await this.store.completeCampaign(scope.campaignId, this.clock.now());
    await this.audit.record(
      auditEntry(scope, proposal.action, proposal.args),
      completed
        ? { status: 'succeeded', result: { campaignId: scope.campaignId, status: 'completed' }, durationMs: 0 }
        : {
            status: 'rejected',
            errorCode: 'INVALID_CONTEXT',
            errorMessage: INVALID_WRAP_UP,
            result: { problems: ['tasks were added meanwhile'] },
            durationMs: 0,
          },
    );
    const result = outcome({
      status: completed ? 'campaign_completed' : 'idle',
      code: completed ? null : 'INVALID_CONTEXT',
      message: completed ? `Campaign ${context.campaign.name} is completed: ${context.finishedTasks} tasks finished.` : INVALID_WRAP_UP,
      proposal: { action: proposal.action, args: proposal.args, reason: proposal.reason, by: 'model' },
      validation: planned.validation,
    });
    return { outcome: result, settlement: null, decision };
  }
}
