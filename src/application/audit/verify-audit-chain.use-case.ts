import { Injectable } from '@nestjs/common';
import { AdminReadRecorder } from './admin-read-recorder';
import { AuditReader, type ChainVerification } from './ports/audit-reader.port';
import { SealAuditChainUseCase } from './seal-audit-chain.use-case';

@Injectable()
export class VerifyAuditChainUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
    private readonly sealer: SealAuditChainUseCase,
  ) {}

  /**
   * Seals what is waiting, so the walk covers every row committed before the request, then
   * checks the chain; the verdict is also the audit row's result, appended after the walk.
   */
  execute(input: { adminId: string }): Promise<ChainVerification> {
    return this.recorder.around(
      { adminId: input.adminId, tool: 'admin.audit_logs.verify', arguments: {} },
      async () => {
        await this.sealer.run({ waitForOtherSealer: true });
        return this.reader.verify();
      },
      (verification) => verification,
    );
  }
}
