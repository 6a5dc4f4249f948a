import { Injectable } from '@nestjs/common';
import { classifyModelFailure } from '../../domain/agent/failures';
import { LanguageModelError, LanguageModelInvalidJsonError } from '../../domain/agent/language-model-errors';
import { ActionCatalog, BUILT_IN_ACTIONS } from '../../domain/outreach/action-catalog';
import { checkPlannerError, checkProposal, type PlannerError, type Proposal } from '../../domain/outreach/actions';
import { type ClaimVerdict, judgeClaim } from '../../domain/outreach/planner-claims';
import { availableActions, fitProblems, untrustedTextProblems, type CycleContext } from '../../domain/outreach/planning';
import { completeJson, type JsonCheck } from '../agent/complete-json';
import { AuditLog } from '../audit/ports/audit-log.port';
import { LanguageModel } from '../agent/ports/language-model.port';
import { SchemaValidator } from '../agent/ports/schema-validator.port';
import { Logger } from '../shared/ports/logger.port';
import { auditEntry, type CycleScope, type DecisionFields, UNPLANNED } from './cycle';
import type { CycleCode, CycleOutcome } from './cycle-outcome';
import { outreachSystemPrompt, outreachUserPrompt } from './outreach-planner.prompt';
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
      /**
       * The model answered with an error instead of an action (docs/outreach.md#when-the-model-proposes-nothing)
       * claiming QUOTA_EXCEEDED or INVALID_CONTEXT in a task cycle: whether the controller's state
       * confirms it (domain/outreach/planner-claims.ts). Refused, the cycle's code is CLAIM_REFUSED.
       */
      readonly claim?: ClaimVerdict;
    };

/** The planning step's end: its result, and what the cycle's decision row records of the model. */
export interface Planned {
  readonly result: PlanResult;
  readonly decision: DecisionFields;
}

/** What the model may answer: one action, or why it proposes none. */
type PlannerAnswer = { readonly kind: 'proposal'; readonly proposal: Proposal } | { readonly kind: 'error'; readonly error: PlannerError };

/** An answer of the model's the checks refused, and why. */
type Refusal = { readonly text: string | null; readonly problems: readonly string[] };

/**
 * The planning step of a cycle: asks the model for ONE action given the reloaded context,
 * checks it against the action contracts (with `schemas`) and the context, and audits every
 * refusal. It returns what the model cost, for the cycle's decision row.
 */
@Injectable()
export class OutreachActionPlanner {
  private readonly logger: Logger;
  private readonly systemPrompt: string;

  constructor(
    private readonly model: LanguageModel,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    logger: Logger,
    private readonly schemas: SchemaValidator,
    /** Every action a cycle may take: the built-in ones and those the channels in service declare. */
    readonly actions: ActionCatalog = BUILT_IN_ACTIONS,
  ) {
    this.logger = logger.withContext(OutreachActionPlanner.name);
    // Every contract compiled once, now: one with a keyword or format the validator does not know fails the start.
    for (const name of actions.names()) schemas.compile(actions.contract(name)!.args);
    this.systemPrompt = outreachSystemPrompt(actions);
  }

  /** The provider and model the cycle's decision row names. */
  get modelName(): { provider: string; model: string } {
    return { provider: this.model.provider, model: this.model.model };
  }

  /** Asks for ONE action; every refused proposal is audited with its reasons. @returns the plan, and what the decision row records of it. */
  async plan(scope: CycleScope, context: CycleContext): Promise<Planned> {
    const refused: Refusal[] = [];
    try {
      const answer = await completeJson(
        this.model,
        {
          systemPrompt: this.systemPrompt,
          messages: [{ role: 'user', content: outreachUserPrompt(context, scope.started, this.actions) }],
          options: PLANNING,
          signal: AbortSignal.timeout(this.settings.planTimeoutMs),
        },
        (value) => this.check(value, context),
        (text, problems) => refused.push({ text, problems }),
      );
      const decision: DecisionFields = { ...UNPLANNED, usage: answer.usage, planningAttempts: answer.attempts };
      await this.auditRefusals(refused, scope);
      const validation = { accepted: true, attempts: answer.attempts, problems: refused.flatMap((r) => r.problems) };
      if (answer.value.kind === 'error') return this.reported(answer.value.error, scope, context, validation, decision);
      return { result: { ok: true, proposal: answer.value.proposal, validation }, decision };
    } catch (error) {
      await this.auditRefusals(refused, scope);
      return this.unanswered(error, scope, refused);
    }
  }

  /** One answer of the model checked: an error answer, or a proposal that keeps the contracts and fits the context. */
  private check(value: unknown, context: CycleContext): ReturnType<JsonCheck<PlannerAnswer>> {
    const reported = checkPlannerError(value, this.actions);
    if (reported) return reported.ok ? { ok: true, value: { kind: 'error', error: reported.value } } : reported;
    const checked = checkProposal(value, this.schemas, this.actions);
    if (!checked.ok) return { ok: false, problems: [...checked.problems, ...untrustedTextProblems(value, context)] };
    const misfit = fitProblems(checked.value, context, this.actions);
    return misfit.length ? { ok: false, problems: misfit } : { ok: true, value: { kind: 'proposal', proposal: checked.value } };
  }

  /** No valid answer came: every answer was refused, or the model could not be reached (anything else is thrown on). */
  private unanswered(error: unknown, scope: CycleScope, refused: readonly Refusal[]): Planned {
    const planningAttempts = Math.max(1, refused.length);
    if (error instanceof LanguageModelInvalidJsonError) {
      return {
        result: {
          ok: false,
          code: 'NO_VALID_ACTION',
          message: `The model proposed no valid action: ${error.problems.join('; ')}.`,
          problems: error.problems,
          validation: { accepted: false, attempts: refused.length, problems: refused.flatMap((r) => r.problems) },
        },
        decision: { ...UNPLANNED, planningAttempts, failureClass: 'NO_VALID_ACTION' },
      };
    }
    if (!(error instanceof LanguageModelError) && !(error instanceof Error && error.name === 'AbortError')) throw error;
    const failureClass = classifyModelFailure(error);
    const providerRequestId = error instanceof LanguageModelError ? (error.requestId ?? null) : null;
    this.logger.warn({ msg: 'outreach planner unavailable', decisionId: scope.decisionId, failureClass, err: error });
    return {
      result: {
        ok: false,
        code: 'MODEL_UNAVAILABLE',
        message: 'The language model could not be reached; the task will be tried again.',
        problems: [],
        validation: null,
      },
      decision: { ...UNPLANNED, planningAttempts, failureClass, providerRequestId },
    };
  }

  /**
   * The model said, as an error answer ({error: {code, message, suggestedAction, suggestedArgs}}), why it proposes no action.
   * A claim about the controller's own state (QUOTA_EXCEEDED, INVALID_CONTEXT) is judged against
   * that state: refused when the state contradicts it (code CLAIM_REFUSED), confirmed by the
   * controller's own finding otherwise. Audited as one rejected row saying which, then the
   * cycle's outcome for it (the orchestrator turns it into the task's state).
   */
  private async reported(
    error: PlannerError,
    scope: CycleScope,
    context: CycleContext,
    validation: NonNullable<CycleOutcome['validation']>,
    answered: DecisionFields,
  ): Promise<Planned> {
    const claim = context.kind === 'task' ? judgeClaim(error.code, context, scope.started, this.actions) : null;
    const refusal = claim && !claim.holds ? claim.reason : null;
    const failureClass = refusal ? 'CLAIM_REFUSED' : error.code !== 'QUOTA_EXCEEDED' ? error.code : null;
    const problem = refusal ?? `the model reported ${error.code}: ${error.message}`;
    const result: PlanResult = {
      ok: false,
      code: refusal ? 'CLAIM_REFUSED' : error.code,
      message: refusal
        ? `The model claimed ${error.code} (${JSON.stringify(error.message)}); ${refusal}.`
        : `The model proposed no action (${error.code}): ${error.message}`,
      problems: refusal ? [refusal] : [error.message],
      // A confirmed claim is a valid answer: the controller's state says the same.
      validation: claim?.holds ? validation : { ...validation, accepted: false, problems: [...validation.problems, problem] },
      ...(claim ? { claim } : {}),
    };
    await this.audit.record(auditEntry(scope, availableActions(context, this.actions)[0], { error }), {
      status: 'rejected',
      errorCode: result.code,
      errorMessage: result.message,
      result: {
        problems: [error.message],
        reportedBy: 'model',
        ...(claim && {
          claim: claim.holds ? 'confirmed' : 'refused',
          reason: claim.holds ? claim.check.problems.join('; ') : claim.reason,
        }),
      },
      durationMs: 0,
    });
    return { result, decision: { ...answered, failureClass } };
  }

  private async auditRefusals(refused: readonly Refusal[], scope: CycleScope): Promise<void> {
    for (const refusal of refused) {
      const parsed = parseObject(refusal.text);
      const tool = typeof parsed?.action === 'string' && this.actions.contract(parsed.action) ? parsed.action : 'invalid_proposal';
      await this.audit.record(auditEntry(scope, tool, parsed ?? { text: (refusal.text ?? '').slice(0, 2000) }), {
        status: 'rejected',
        errorCode: 'INVALID_PROPOSAL',
        errorMessage: `The model's proposal was refused: ${refusal.problems.join('; ')}.`,
        result: { problems: refusal.problems },
        durationMs: 0,
      });
    }
  }
}

function parseObject(text: string | null): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
