import { Injectable } from '@nestjs/common';
import { classifyModelFailure } from '../../domain/agent/failures';
import { LanguageModelError, LanguageModelInvalidJsonError } from '../../domain/agent/language-model-errors';
import { ACTION_CONTRACTS, checkPlannerError, checkProposal, type PlannerError, type Proposal } from '../../domain/outreach/actions';
import { type ClaimVerdict, judgeClaim } from '../../domain/outreach/planner-claims';
import { availableActions, fitProblems, untrustedTextProblems, type CycleContext } from '../../domain/outreach/planning';
import { completeJson } from '../agent/complete-json';
import { AuditLog } from '../agent/ports/audit-log.port';
import { LanguageModel } from '../agent/ports/language-model.port';
import { SchemaValidator } from '../agent/ports/schema-validator.port';
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
      /**
       * The model answered with an error instead of an action (docs/outreach.md#when-the-model-proposes-nothing)
       * claiming QUOTA_EXCEEDED or INVALID_CONTEXT in a task cycle: whether the controller's state
       * confirms it (domain/outreach/planner-claims.ts). Refused, the cycle's code is CLAIM_REFUSED.
       */
      readonly claim?: ClaimVerdict;
    };

/** What the model may answer: one action, or why it proposes none. */
type PlannerAnswer = { readonly kind: 'proposal'; readonly proposal: Proposal } | { readonly kind: 'error'; readonly error: PlannerError };

/**
 * The planning step of a cycle: asks the model for ONE action given the reloaded context,
 * checks it against the action contracts (with `schemas`) and the context, and audits every
 * refusal. What the model cost goes on the cycle.
 */
@Injectable()
export class OutreachActionPlanner {
  private readonly logger: Logger;

  constructor(
    private readonly model: LanguageModel,
    private readonly audit: AuditLog,
    private readonly settings: OutreachSettings,
    logger: Logger,
    private readonly schemas: SchemaValidator,
  ) {
    this.logger = logger.withContext(OutreachActionPlanner.name);
    // Every contract compiled once, now: one with a keyword or format the validator does not know fails the start.
    for (const contract of Object.values(ACTION_CONTRACTS)) schemas.compile(contract.args);
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
      const checked = checkProposal(value, this.schemas);
      if (!checked.ok) return { ok: false as const, problems: [...checked.problems, ...untrustedTextProblems(value, context)] };
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
   * The model said, as an error answer ({error: {code, message, suggestedAction, suggestedArgs}}), why it proposes no action.
   * A claim about the controller's own state (QUOTA_EXCEEDED, INVALID_CONTEXT) is judged against
   * that state: refused when the state contradicts it (code CLAIM_REFUSED), confirmed by the
   * controller's own finding otherwise. Audited as one rejected row saying which, then the
   * cycle's outcome for it (the orchestrator turns it into the task's state).
   */
  private async reported(
    error: PlannerError,
    cycle: Cycle,
    context: CycleContext,
    entry: AuditEntryFor,
    validation: NonNullable<CycleOutcome['validation']>,
  ): Promise<PlanResult> {
    const claim = context.kind === 'task' ? judgeClaim(error.code, context, cycle.started) : null;
    const refusal = claim && !claim.holds ? claim.reason : null;
    await this.audit.record(entry(availableActions(context)[0], { error }), {
      status: 'rejected',
      errorCode: refusal ? 'CLAIM_REFUSED' : error.code,
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
    if (refusal) cycle.failureClass = 'CLAIM_REFUSED';
    else if (error.code !== 'QUOTA_EXCEEDED') cycle.failureClass = error.code;
    const problem = refusal ?? `the model reported ${error.code}: ${error.message}`;
    return {
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

function parseObject(text: string | null): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
