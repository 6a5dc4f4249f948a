import { Injectable } from '@nestjs/common';
import { AdminReadRecorder } from './admin-read-recorder';
import { DecisionNotFoundError } from '../../domain/audit/audit-errors';
import { AuditReader, type DecisionWithToolCalls } from './ports/audit-reader.port';

@Injectable()
export class GetDecisionUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /** The decision with its audit rows. @throws DecisionNotFoundError; the read is audited either way. */
  execute(input: { adminId: string; id: string }): Promise<DecisionWithToolCalls> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.decisions.get', arguments: { id: input.id } },
      async () => {
        const decision = await this.reader.getDecision(input.id);
        if (!decision) throw new DecisionNotFoundError();
        return decision;
      },
      (decision) => ({ toolCalls: decision.toolCalls.length }),
    );
  }
}
