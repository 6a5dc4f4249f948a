import { Injectable } from '@nestjs/common';
import { PolicyDeniedError, PolicyLimitReachedError } from '../../domain/policy/policy-refusal-error';
import { AuditLog } from '../audit/ports/audit-log.port';
import { PolicyGate } from './policy-gate';

/**
 * A request of the person's own to the REST task routes (source `api`), before it runs: the
 * policy gate lets it through or refuses it. A refusal is an audit row (`rejected`, the
 * policy's rule, version and effect, the tool of the same name and the request's arguments),
 * as a refused tool call's is, so that an admin sees what the policy stopped wherever it came
 * from. A request let through is not recorded: it is the person's own change, not an agent's.
 */
@Injectable()
export class AdmitApiRequest {
  constructor(
    private readonly gate: PolicyGate,
    private readonly audit: AuditLog,
  ) {}

  /** @throws PolicyDeniedError, PolicyLimitReachedError, once the refusal is recorded */
  async admit(tool: string, args: Readonly<Record<string, unknown>>, userId: string): Promise<void> {
    try {
      await this.gate.admit(tool, args, { userId, source: 'api' });
    } catch (error) {
      if (error instanceof PolicyDeniedError || error instanceof PolicyLimitReachedError) {
        await this.audit.record(
          { source: 'api', actorId: userId, tool, arguments: { ...args }, securityEvents: [], policy: error.verdict },
          { status: 'rejected', errorCode: error.refusal.code, errorMessage: error.refusal.message, durationMs: 0 },
        );
      }
      throw error;
    }
  }
}
