import { Injectable } from '@nestjs/common';
import { CONFIRMATION_REQUIRED, confirmInChatMessage, destructiveToolNotice } from '../../domain/agent/confirmation';
import { failureOfToolError, friendlyToolError, TREATMENTS } from '../../domain/agent/failures';
import { validateToolArguments } from '../../domain/agent/tool-call-validation';
import type { ToolDefinition } from '../../domain/agent/tools';
import type { ToolWords } from '../../domain/agent/tool-words';
import { verdictOf } from '../../domain/policy/policy';
import { denied, overLimit } from '../../domain/policy/policy-refusal';
import { Clock } from '../shared/ports/clock.port';
import { Metrics } from '../shared/ports/metrics.port';
import { UnitOfWork } from '../shared/ports/unit-of-work.port';
import { AuditLog, type ToolAuditEntry, type ToolAuditEnding, type ToolAuditOutcome } from '../audit/ports/audit-log.port';
import { PolicyGate } from '../policy/policy-gate';
import { SchemaValidator } from './ports/schema-validator.port';
import type { ToolCaller, ToolCallContext, ToolResult } from './ports/tool-gateway.port';
import { Toolbox } from './ports/toolbox.port';
import { ToolCallSettings } from './tool-call-settings';

/**
 * The server side of every tool call, whoever makes it (the chat agent in process, a
 * confirmed chat action, or an MCP client over HTTP), and the one place a call is audited
 * and counted: validate, resolve what the call will act on (Toolbox.resolve), ask the policy
 * in force about that (docs/policies.md: deny, ask the person, count against its limits),
 * audit before effect with the policy's verdict on the row, run the call as resolved, audit
 * the outcome, count it in the metrics. The
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
      const unasked = this.policy.inForce(anyCall).effect === 'allow';
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
    return decision.effect === 'ask-person' ? { policyVersion: decision.version } : null;
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
    const dryRun = mode.kind === 'dry-run';
    if ((decision.effect === 'deny' || decision.effect === 'ask-reviewer') && decision.rule !== null) {
      // A reviewer is asked only for outreach's messages: a policy cannot name one for these tools (readPolicy).
      return this.refuse(audited, { ok: false, ...denied({ ...decision, rule: decision.rule }) }, definition.name);
    }
    // Dry runs and confirmed calls are how the person is asked and how their yes comes back.
    if (decision.effect === 'ask-person' && mode.kind === 'run') {
      const message = confirmInChatMessage(this.toolbox.chatRequestFor(definition.name, validation.arguments), this.settings.consoleUrl);
      return this.refuse(audited, { ok: false, code: CONFIRMATION_REQUIRED, message }, definition.name);
    }
    // Limits count what runs: never a dry run; a confirmed call when its yes runs it. A dry run
    // only looks, so that nobody is asked about a call its limit would refuse anyway.
    const reached = dryRun ? await this.policy.full(decision) : await this.policy.take(decision);
    if (reached) {
      return this.refuse(
        { ...audited, policy: verdictOf(decision, reached.limit) },
        { ok: false, ...overLimit(decision.version, reached.limit, reached.retryAfterSeconds) },
        definition.name,
      );
    }
    const pendingSeq = definition.mutates && !dryRun ? await this.audit.recordPending(audited) : null;
    const started = this.clock.now().getTime();
    const finish = async (outcome: ToolAuditEnding) => {
      const complete: ToolAuditOutcome = { ...outcome, durationMs: this.clock.now().getTime() - started };
      if (pendingSeq === null) await this.audit.record(audited, complete);
      else await this.audit.recordOutcome(pendingSeq, audited, complete);
      return complete;
    };
    const runAndRecord = async () => {
      const result = await this.toolbox.run(resolution.call, context.userId, { dryRun });
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
      return result;
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
