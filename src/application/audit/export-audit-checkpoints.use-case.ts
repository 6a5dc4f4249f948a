import { Injectable } from '@nestjs/common';
import type { SignedCheckpoint } from '../../domain/audit/checkpoint';
import { AdminReadRecorder } from './admin-read-recorder';
import { EXPORT_ABORTED } from './ports/audit-log.port';
import { AuditReader } from './ports/audit-reader.port';

@Injectable()
export class ExportAuditCheckpointsUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /**
   * Every signed checkpoint, oldest first: the digest an auditor keeps outside the database.
   * Audited as the rows' export is: a pending row before the first is read, its outcome with
   * the count (or EXPORT_ABORTED) when iteration ends.
   */
  execute(input: { adminId: string }): AsyncIterable<SignedCheckpoint> {
    return this.checkpoints(input.adminId);
  }

  /** The same without an admin: the operator's command. */
  all(): AsyncIterable<SignedCheckpoint> {
    return this.reader.checkpoints();
  }

  private async *checkpoints(adminId: string): AsyncGenerator<SignedCheckpoint> {
    const read = await this.recorder.start({ adminId, tool: 'admin.audit_logs.checkpoints', arguments: {} });
    let checkpoints = 0;
    let complete = false;
    try {
      for await (const checkpoint of this.reader.checkpoints()) {
        checkpoints += 1;
        yield checkpoint;
      }
      complete = true;
    } finally {
      await read.finish(
        complete
          ? { status: 'succeeded', result: { checkpoints } }
          : { status: 'failed', errorCode: 'EXPORT_ABORTED', errorMessage: EXPORT_ABORTED, result: { checkpoints } },
      );
    }
  }
}
