import { Injectable } from '@nestjs/common';
import { CONFIRMATION_REQUIRED, confirmInChatMessage, destructiveToolNotice } from '../../domain/agent/confirmation';
import { failureOfToolError, friendlyToolError, TREATMENTS } from '../../domain/agent/failures';
import { validateToolArguments } from '../../domain/agent/tool-call-validation';
import type { ToolDefinition } from '../../domain/agent/tools';
import type { ToolWords } from '../../domain/agent/tool-words';
import { type Enforcement, enforcement, type PolicyDoor } from '../../domain/policy/enforcement';
import { type PolicyDecision, verdictOf } from '../../domain/policy/policy';
import { overLimit } from '../../domain/policy/policy-refusal';
import { Clock } from '../shared/ports/clock.port';
import { Metrics } from '../shared/ports/metrics.port';
import { UnitOfWork } from '../shared/ports/unit-of-work.port';
import { AuditLog, type ToolAuditEntry, type ToolAuditEnding, type ToolAuditOutcome } from '../audit/ports/audit-log.port';
import { PolicyGate } from '../policy/policy-gate';
import { SchemaValidator } from './ports/schema-validator.port';
import type { ToolCaller, ToolCallContext, ToolCallMode, ToolResult } from './ports/tool-gateway.port';
import { type DryRunResult, type ResolvedCall, Toolbox } from './ports/toolbox.port';
import { ToolCallSettings } from './tool-call-settings';

/**
 * The server side of every tool call, whoever makes it (the chat agent in process, a
 * confirmed chat action, or an MCP client over HTTP), and the one place a call is audited
 * and counted: validate, resolve what the call will act on (Toolbox.resolve), ask the policy
 * in force about that and carry out its decision for the call's mode (enforcement(), ToolDoor:
 * refuse, say where the person can say yes, or run once its limits allow), audit before effect
 * with the policy's verdict on the row, run the call as resolved, audit the outcome, count it
 * in the metrics. The
 * context's `mode` says which of four things a call is: an ordinary call (`run`), a preview
 * that changes nothing (`dry-run`), the call the person said yes to (`confirmed`, checked
 * against the tool's confirmedInputSchema), or one the agent refused before sending
 * (`refused`), which is only recorded, the same way.
 * A failed or refused call's row carries its error code and the sentence the person is told
 * for it (friendlyToolError).
 *
 * A call that changes something commits its pending row first, then its own write and its
 * outcome row in one unit of work: the effect never stands without its outcome. If that
 * unit of work fails, the outcome `failed` is written on its own.
 */
@Injectable()
export class ExecuteToolCallUseCase {
  private readonly toolNames: ReadonlySet<string>;

  constructor(
    private readonly toolbox: Toolbox,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly settings: ToolCallSettings,
    private readonly unitOfWork: UnitOfWork,
    private readonly schemas: SchemaValidator,
    private readonly policy: PolicyGate,
  ) {
    this.toolNames = new Set(toolbox.definitions.map((tool) => tool.name));
    // Every schema compiled once, now: a tool with a keyword the validator does not know fails the start.
    for (const tool of toolbox.definitions) {
      schemas.compile(tool.inputSchema);
      if (tool.confirmedInputSchema) schemas.compile(tool.confirmedInputSchema);
      if (tool.outputSchema) schemas.compile(tool.outputSchema);
    }
  }

  /** The tools' own words (Toolbox.words): what a confirmation form shows, read by the MCP servers. */
  get words(): ToolWords {
    return this.toolbox.words;
  }

  /** Whether `name` is one of the tools (a caller's word, checked before it names anything). */
  isTool(name: string): boolean {
    return this.toolNames.has(name);
  }

  /**
   * The tools as a caller on `source` reads them: a destructive one says what the server does
   * with it there, as the policy in force decides it for anyone's call with no other condition.
   */
  definitionsFor(source: 'chat' | 'mcp'): readonly ToolDefinition[] {
    return this.toolbox.definitions.map((tool) => {
      if (!tool.destructive) return tool;
      const anyCall = { tool: tool.name, source, userId: '', targets: { items: 1, recipient: null }, at: this.clock.now() };
      const unasked = enforcement(this.policy.inForce(anyCall), RUN_DOOR).kind === 'run';
      return { ...tool, description: `${tool.description} ${destructiveToolNotice(source, unasked ? 'allow' : 'confirm-in-chat')}` };
    });
  }

  /**
   * Whether the policy in force puts this call to the person before it runs (a dry run, then
   * their yes), decided on what it resolves to now. A call that is invalid or resolves to
   * nothing is not asked about: it runs, and fails as it would.
   * @returns the version of the policy that asks, or null when the call is not put to the person.
   */
  async asksThePerson(tool: string, args: unknown, caller: ToolCaller): Promise<{ readonly policyVersion: number } | null> {
    const validation = validateToolArguments(this.toolbox.definitions, tool, args ?? {}, this.schemas);
    if (!validation.ok) return null;
    const resolution = await this.toolbox.resolve(validation.tool.name, validation.arguments, caller.userId);
    if (!resolution.ok) return null;
    const decision = await this.policy.decide(tool, resolution.call.targets, caller);
    return enforcement(decision, RUN_DOOR).kind === 'ask-person' ? { policyVersion: decision.version } : null;
  }

  /** @throws only what the toolbox did not expect, after auditing it as failed. */
  async execute(input: { tool: string; arguments: unknown; context: ToolCallContext }): Promise<ToolResult> {
    const { context } = input;
    const { mode } = context;
    const entry: ToolAuditEntry = {
      source: context.source,
      actorId: context.userId,
      conversationId: context.conversationId,
      decisionId: context.decisionId,
      tool: input.tool,
      arguments: (input.arguments ?? {}) as Record<string, unknown>,
      securityEvents: context.securityEvents ?? [],
    };
    // Metrics name only known tools: any name a model or an MCP client makes up would be a new series forever.
    const tool = this.toolbox.definitions.find((definition) => definition.name === input.tool);
    const metricTool = tool?.name ?? 'unknown';
    if (mode.kind === 'refused') {
      const { arguments: recorded, ...refusal } = mode.refusal;
      return this.refuse({ ...entry, arguments: recorded }, { ok: false, ...refusal }, metricTool);
    }

    const tools =
      mode.kind === 'confirmed' && tool?.confirmedInputSchema
        ? [{ ...tool, inputSchema: tool.confirmedInputSchema }]
        : this.toolbox.definitions;
    const validation = validateToolArguments(tools, input.tool, input.arguments ?? {}, this.schemas);
    const securityEvents = [...entry.securityEvents, ...validation.securityEvents];
    if (!validation.ok) {
      const { code, message, details } = validation;
      return this.refuse({ ...entry, securityEvents }, { ok: false, code, message, ...(details ? { details } : {}) }, metricTool);
    }
    const { tool: definition } = validation;
    // The policy decides on what the call resolves to now, and the run carries out exactly that.
    const resolution = await this.toolbox.resolve(definition.name, validation.arguments, context.userId);
    if (!resolution.ok) return this.unresolved({ ...entry, arguments: validation.arguments, securityEvents }, resolution);
    const decision = await this.policy.decide(definition.name, resolution.call.targets, context);
    const audited: ToolAuditEntry = { ...entry, arguments: validation.arguments, securityEvents, policy: verdictOf(decision) };
    const enforced = enforcement(decision, toolDoor(mode));
    switch (enforced.kind) {
      case 'refuse':
        return this.refuse(audited, { ok: false, ...enforced.refusal }, definition.name);
      case 'ask-person': {
        // This call cannot put the question itself: it says where the person can say yes.
        const message = confirmInChatMessage(this.toolbox.chatRequestFor(definition.name, validation.arguments), this.settings.consoleUrl);
        return this.refuse(audited, { ok: false, code: CONFIRMATION_REQUIRED, message }, definition.name);
      }
      case 'run':
        return this.run(definition.name, definition.mutates, resolution.call, { audited, decision, enforced, userId: context.userId });
      default: {
        const unknown: never = enforced;
        return unknown;
      }
    }
  }

  /**
   * Runs a call the policy lets run, once its obligations are met: limits count what runs (a
   * confirmed call when its yes runs it); a preview (dry run) only looks, so that nobody is asked
   * about a call its limit would refuse anyway. A preview's question says whether the policy puts
   * the call to the person (DryRunResult.asksThePerson).
   */
  private async run(
    tool: string,
    mutates: boolean,
    call: ResolvedCall,
    decided: {
      audited: ToolAuditEntry;
      decision: PolicyDecision;
      enforced: Extract<Enforcement, { kind: 'run' }>;
      userId: string;
    },
  ): Promise<ToolResult> {
    const { audited, decision, enforced } = decided;
    const dryRun = enforced.preview !== null;
    const reached = dryRun ? await this.policy.full(enforced.obligations) : await this.policy.take(enforced.obligations);
    if (reached) {
      return this.refuse(
        { ...audited, policy: verdictOf(decision, reached.limit) },
        { ok: false, ...overLimit(decision.version, reached.limit, reached.retryAfterSeconds) },
        tool,
      );
    }
    const pendingSeq = mutates && !dryRun ? await this.audit.recordPending(audited) : null;
    const started = this.clock.now().getTime();
    const finish = async (outcome: ToolAuditEnding) => {
      const complete: ToolAuditOutcome = { ...outcome, durationMs: this.clock.now().getTime() - started };
      if (pendingSeq === null) await this.audit.record(audited, complete);
      else await this.audit.recordOutcome(pendingSeq, audited, complete);
      return complete;
    };
    const runAndRecord = async () => {
      const result = await this.toolbox.run(call, decided.userId, { dryRun });
      const recorded = await finish(
        result.ok
          ? { status: dryRun ? 'confirmation_required' : 'succeeded', result: result.data }
          : {
              status: TREATMENTS[failureOfToolError(result.code, this.toolbox.errorWording)].auditStatus,
              result: result.details,
              errorCode: result.code,
              errorMessage: friendlyToolError(result, this.toolbox.errorWording),
            },
      );
      return { result, recorded };
    };

    try {
      const { result, recorded } = pendingSeq === null ? await runAndRecord() : await this.unitOfWork.run(runAndRecord);
      this.metrics.toolCall(audited.tool, recorded.status, recorded.durationMs / 1000);
      if (!result.ok || enforced.preview === null) return result;
      const question: DryRunResult = { ...(result.data as DryRunResult), asksThePerson: enforced.preview === 'asks' };
      return { ok: true, data: question };
    } catch (error) {
      // Nothing of the unit of work stands: the call failed, whatever it had done.
      const recorded = await finish({ status: 'failed', errorCode: 'INTERNAL', errorMessage: TREATMENTS.UNKNOWN.userSees });
      this.metrics.toolCall(audited.tool, recorded.status, recorded.durationMs / 1000);
      throw error;
    }
  }

  /**
   * A call that names nothing there is (no such task, more than one): nothing would run, so
   * the policy is not asked. One row records it, as a failed run's outcome would read.
   */
  private async unresolved(entry: ToolAuditEntry, failure: ToolResult & { ok: false }): Promise<ToolResult> {
    const status = TREATMENTS[failureOfToolError(failure.code, this.toolbox.errorWording)].auditStatus;
    this.metrics.toolCall(entry.tool, status, 0);
    await this.audit.record(entry, {
      status,
      result: failure.details,
      errorCode: failure.code,
      errorMessage: friendlyToolError(failure, this.toolbox.errorWording),
      durationMs: 0,
    });
    return failure;
  }

  private async refuse(entry: ToolAuditEntry, refusal: ToolResult & { ok: false }, metricTool: string): Promise<ToolResult> {
    this.metrics.toolCall(metricTool, 'rejected', null);
    await this.audit.record(entry, {
      status: 'rejected',
      errorCode: refusal.code,
      errorMessage: friendlyToolError(refusal, this.toolbox.errorWording),
      durationMs: 0,
    });
    return refusal;
  }
}

/** The tools server as a door: nothing holds for a reviewer here. */
interface ToolDoor extends PolicyDoor {
  readonly person: 'asks' | 'previews' | 'agreed';
  readonly reviewer: 'nobody';
}

/** A call in `run` mode: it cannot put the question itself, and says where the person can say yes. */
const RUN_DOOR: ToolDoor = { person: 'asks', reviewer: 'nobody' };

/** What a call's mode makes of the tools server as a door: a dry run is the person's question, a confirmed call their yes. */
function toolDoor(mode: Exclude<ToolCallMode, { kind: 'refused' }>): ToolDoor {
  switch (mode.kind) {
    case 'run':
      return RUN_DOOR;
    case 'dry-run':
      return { person: 'previews', reviewer: 'nobody' };
    case 'confirmed':
      return { person: 'agreed', reviewer: 'nobody' };
    default: {
      const unknown: never = mode;
      return unknown;
    }
  }
}
