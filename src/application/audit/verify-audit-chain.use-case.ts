import { Injectable } from '@nestjs/common';
import { AdminReadRecorder } from './admin-read-recorder';
import { AuditReader, type ChainVerification } from './ports/audit-reader.port';

@Injectable()
export class VerifyAuditChainUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /** Checks the hash chain; the verdict is also the audit row's result, appended after the walk. */
  execute(input: { adminId: string }): Promise<ChainVerification> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.audit_logs.verify', arguments: {} },
      () => this.reader.verify(),
      (verification) => verification,
    );
  }
}
