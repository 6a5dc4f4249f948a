import { Injectable } from '@nestjs/common';
import type { TaskApiRequest } from '../../domain/policy/api-request';
import { PolicyDeniedError, PolicyLimitReachedError } from '../../domain/policy/policy-refusal-error';
import { AuditLog } from '../audit/ports/audit-log.port';
import { TodoTools } from '../todo/tools/todo-tools';
import { PolicyGate } from './policy-gate';

/**
 * A request of the person's own to the REST task routes (source `api`), before it runs: the
 * policy gate lets it through or refuses it, decided as every tool call it amounts to
 * (each tool's REST twin, TodoTools.apiRequestCalls: a PATCH that completes a task is complete_task). A refusal is an audit row
 * (`rejected`, the tool refused, the policy's rule, version and effect, and the request's
 * arguments), as a refused tool call's is, so that an admin sees what the policy stopped
 * wherever it came from. A request let through is not recorded: it is the person's own change,
 * not an agent's.
 */
@Injectable()
export class AdmitApiRequest {
  constructor(
    private readonly gate: PolicyGate,
    private readonly audit: AuditLog,
    private readonly tools: TodoTools = TodoTools.builtIn,
  ) {}

  /**
   * @param args the request's arguments, as its audit row records them
   * @throws PolicyDeniedError, PolicyLimitReachedError, once the refusal is recorded
   */
  async admit(request: TaskApiRequest, args: Readonly<Record<string, unknown>>, userId: string): Promise<void> {
    try {
      await this.gate.admit(this.tools.apiRequestCalls(request), { userId, source: 'api' });
    } catch (error) {
      if (error instanceof PolicyDeniedError || error instanceof PolicyLimitReachedError) {
        await this.audit.record(
          { source: 'api', actorId: userId, tool: error.tool, arguments: { ...args }, securityEvents: [], policy: error.verdict },
          { status: 'rejected', errorCode: error.refusal.code, errorMessage: error.refusal.message, durationMs: 0 },
        );
      }
      throw error;
    }
  }
}
