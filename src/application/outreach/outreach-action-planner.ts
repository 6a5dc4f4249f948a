import { Injectable } from '@nestjs/common';
import { classifyModelFailure } from '../../domain/agent/failures';
import { LanguageModelError, LanguageModelInvalidJsonError } from '../../domain/agent/language-model-errors';
import {
  ACTION_CONTRACTS,
  checkPlannerError,
  checkProposal,
  type PlannerError,
  type Proposal,
  REASON_MAX_LENGTH,
  suggestedCooldownHours,
} from '../../domain/outreach/actions';
import { availableActions, fitProblems, type CycleContext } from '../../domain/outreach/planning';
import { hoursUntilReset } from '../../domain/outreach/quota';
import { completeJson } from '../agent/complete-json';
import { AuditLog } from '../agent/ports/audit-log.port';
import { LanguageModel } from '../agent/ports/language-model.port';
import { Logger } from '../shared/ports/logger.port';
import type { AuditEntryFor, Cycle } from './cycle';
import type { CycleCode, CycleOutcome } from './cycle-outcome';
import { OUTREACH_SYSTEM_PROMPT, outreachUserPrompt } from './outreach-planner.prompt';
import { OutreachSettings } from './outreach-settings';

/** Planning asks for one short JSON answer: a little variety, at most 500 tokens. */
const PLANNING = { temperature: 0.3, maxTokens: 500 } as const;

export type PlanResult =
  | { readonly ok: true; readonly proposal: Proposal; readonly validation: CycleOutcome['validation'] }
  | {
      readonly ok: false;
      readonly code: CycleCode;
      readonly message: string;
      readonly problems: readonly string[];
      readonly validation: CycleOutcome['validation'];
      /** The model answered with an error instead of an action (audited; docs/outreach.md#when-the-model-proposes-nothing): what it said. */
      readonly reported?: PlannerError;
      /** For a reported QUOTA_EXCEEDED: the wait_cooldown the task takes (its suggested duration, if valid; else until the next UTC midnight). */
      readonly cooldown?: { readonly durationHours: number; readonly reason: string };
    };

/** What the model may answer: one action, or why it proposes none. */
type PlannerAnswer = { readonly kind: 'proposal'; readonly proposal: Proposal } | { readonly kind: 'error'; readonly error: PlannerError };

/**
 * The planning step of a cycle: asks the model for ONE action given the reloaded context,
 * checks it against the action contracts and the context, and audits every refusal. What
 * the model cost goes on the cycle.
 */
@Injectable()
export class OutreachActionPlanner {
  private readonly logger: Logger;

  constructor(
    private readonly model: LanguageModel,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    logger: Logger,
  ) {
    this.logger = logger.withContext(OutreachActionPlanner.name);
  }

  /** The provider and model the cycle's decision row names. */
  get modelName(): { provider: string; model: string } {
    return { provider: this.model.provider, model: this.model.model };
  }

  /** Asks for ONE action; every refused proposal is audited with its reasons. */
  async plan(cycle: Cycle, context: CycleContext, entry: AuditEntryFor): Promise<PlanResult> {
    const refused: { text: string | null; problems: readonly string[] }[] = [];
    const check = (value: unknown) => {
      const reported = checkPlannerError(value);
      if (reported) return reported.ok ? { ok: true as const, value: { kind: 'error', error: reported.value } as PlannerAnswer } : reported;
      const checked = checkProposal(value);
      if (!checked.ok) return checked;
      const misfit = fitProblems(checked.value, context);
      return misfit.length
        ? { ok: false as const, problems: misfit }
        : { ok: true as const, value: { kind: 'proposal', proposal: checked.value } as PlannerAnswer };
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
      const validation = { accepted: true, attempts: answer.attempts, problems: refused.flatMap((r) => r.problems) };
      if (answer.value.kind === 'error') return this.reported(answer.value.error, cycle, context, entry, validation);
      return { ok: true, proposal: answer.value.proposal, validation };
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

  /**
   * The model said, as an error answer ({error: {code, message, suggestedAction, suggestedArgs}}), why it proposes no action: audited as a
   * rejected row with its code, then the cycle's outcome for that code (the orchestrator
   * turns it into the task's state): QUOTA_EXCEEDED waits (wait_cooldown), INVALID_CONTEXT
   * and NO_VALID_ACTION end as the controller's own would.
   */
  private async reported(
    error: PlannerError,
    cycle: Cycle,
    context: CycleContext,
    entry: AuditEntryFor,
    validation: NonNullable<CycleOutcome['validation']>,
  ): Promise<PlanResult> {
    const cooldown =
      error.code === 'QUOTA_EXCEEDED'
        ? {
            durationHours: suggestedCooldownHours(error) ?? hoursUntilReset(cycle.started),
            reason: reasonOf(`The model reports the quota exceeded: ${error.message}`),
          }
        : undefined;
    await this.audit.record(entry(availableActions(context)[0], { error }), {
      status: 'rejected',
      errorCode: error.code,
      result: { problems: [error.message], reportedBy: 'model', ...(cooldown ? { durationHours: cooldown.durationHours } : {}) },
      durationMs: 0,
    });
    if (error.code !== 'QUOTA_EXCEEDED') cycle.failureClass = error.code;
    const problem = `the model reported ${error.code}: ${error.message}`;
    return {
      ok: false,
      code: error.code,
      message: `The model proposed no action (${error.code}): ${error.message}`,
      problems: [error.message],
      validation: cooldown ? validation : { ...validation, accepted: false, problems: [...validation.problems, problem] },
      reported: error,
      ...(cooldown ? { cooldown } : {}),
    };
  }

  private async auditRefusals(
    refused: readonly { text: string | null; problems: readonly string[] }[],
    entry: AuditEntryFor,
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
}

/** A reason within the contract's 200 characters. */
function reasonOf(text: string): string {
  return text.length > REASON_MAX_LENGTH ? `${text.slice(0, REASON_MAX_LENGTH - 1)}…` : text;
}

function parseObject(text: string | null): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
