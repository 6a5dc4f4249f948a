import { Injectable } from '@nestjs/common';
import { AdminReadRecorder } from './admin-read-recorder';
import { AuditRowNotFoundError } from '../../domain/audit/audit-errors';
import { AuditReader, type AuditRecord } from './ports/audit-reader.port';

@Injectable()
export class GetAuditLogUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /** @throws AuditRowNotFoundError; the read is audited either way. */
  execute(input: { adminId: string; seq: number }): Promise<AuditRecord> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.audit_logs.get', arguments: { seq: input.seq } },
      async () => {
        const row = await this.reader.get(input.seq);
        if (!row) throw new AuditRowNotFoundError();
        return row;
      },
      (row) => ({ seq: row.seq }),
    );
  }
}
