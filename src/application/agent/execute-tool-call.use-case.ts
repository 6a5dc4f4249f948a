import { Injectable } from '@nestjs/common';
import { failureOfToolError, TREATMENTS } from '../../domain/agent/failures';
import { validateToolArguments } from '../../domain/agent/tool-call-validation';
import { Clock } from '../shared/ports/clock.port';
import { AuditLog, type ToolAuditEntry } from './ports/audit-log.port';
import type { ToolCallContext, ToolResult } from './ports/tool-gateway.port';
import { Toolbox } from './ports/toolbox.port';

/**
 * The server side of every tool call, whoever makes it (the chat agent in process, or an
 * MCP client over HTTP): validate, audit before effect, run, audit the outcome.
 */
@Injectable()
export class ExecuteToolCallUseCase {
  constructor(
    private readonly toolbox: Toolbox,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async execute(input: { tool: string; arguments: unknown; context: ToolCallContext }): Promise<ToolResult> {
    const { context } = input;
    const entry = (args: ToolAuditEntry['arguments'], securityEvents = context.securityEvents ?? []): ToolAuditEntry => ({
      source: context.source,
      actorId: context.userId,
      conversationId: context.conversationId,
      decisionId: context.decisionId,
      tool: input.tool,
      arguments: args,
      securityEvents,
    });
    const rawArguments = (input.arguments ?? {}) as Record<string, unknown>;

    const tool = this.toolbox.definitions.find((definition) => definition.name === input.tool);
    if (!tool) {
      const refused: ToolResult = { ok: false, code: 'UNKNOWN_TOOL', message: `There is no tool named "${input.tool}".` };
      await this.audit.record(entry(rawArguments), { status: 'rejected', errorCode: refused.code, durationMs: 0 });
      return refused;
    }
    const validation = validateToolArguments(tool, input.arguments ?? {});
    const securityEvents = [...(context.securityEvents ?? []), ...validation.securityEvents];
    if (!validation.ok) {
      const refused: ToolResult = { ok: false, code: validation.code, message: validation.message };
      await this.audit.record(entry(rawArguments, securityEvents), {
        status: 'rejected',
        errorCode: refused.code,
        durationMs: 0,
      });
      return refused;
    }

    const audited = entry(validation.arguments, securityEvents);
    const dryRun = context.dryRun === true;
    const pendingSeq = tool.mutates && !dryRun ? await this.audit.recordPending(audited) : null;
    const started = this.clock.now().getTime();
    const result = await this.run(tool.name, validation.arguments, context.userId, dryRun);
    const outcome = {
      status: result.ok ? (dryRun ? 'confirmation_requested' : 'succeeded') : TREATMENTS[failureOfToolError(result.code)].auditStatus,
      result: result.ok ? result.data : (result.details ?? undefined),
      errorCode: result.ok ? undefined : result.code,
      durationMs: this.clock.now().getTime() - started,
    } as const;
    if (pendingSeq === null) await this.audit.record(audited, outcome);
    else await this.audit.recordOutcome(pendingSeq, audited, outcome);
    return result;
  }

  private async run(tool: string, args: Record<string, unknown>, userId: string, dryRun: boolean): Promise<ToolResult> {
    try {
      return await this.toolbox.run(tool, args, userId, { dryRun });
    } catch {
      // The toolbox maps every expected failure to a result; anything else is a bug, and
      // the model must not read its details.
      return { ok: false, code: 'INTERNAL', message: 'The tool failed unexpectedly.' };
    }
  }
}
