import { Injectable } from '@nestjs/common';
import { AdminReadRecorder, filterArguments } from './admin-read-recorder';
import { EXPORT_ABORTED } from './ports/audit-log.port';
import { type AuditFilter, AuditReader, type AuditRecord } from './ports/audit-reader.port';

@Injectable()
export class ExportAuditLogUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /**
   * The matching rows oldest first, up to the newest row when the export began. Nothing
   * happens until the first row is asked for; then a pending audit row is committed, and
   * when iteration ends its outcome: succeeded with the row count, or failed
   * (EXPORT_ABORTED) when the consumer stopped early or reading failed.
   */
  execute(input: { adminId: string; filter: AuditFilter }): AsyncIterable<AuditRecord> {
    return this.rows(input.adminId, input.filter);
  }

  private async *rows(adminId: string, filter: AuditFilter): AsyncGenerator<AuditRecord> {
    const read = await this.recorder.start({ adminId, tool: 'admin.audit_logs.export', arguments: filterArguments(filter) });
    let rows = 0;
    let complete = false;
    try {
      for await (const row of this.reader.export(filter)) {
        rows += 1;
        yield row;
      }
      complete = true;
    } finally {
      await read.finish(
        complete
          ? { status: 'succeeded', result: { rows } }
          : { status: 'failed', errorCode: 'EXPORT_ABORTED', errorMessage: EXPORT_ABORTED, result: { rows } },
      );
    }
  }
}
