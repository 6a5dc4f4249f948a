import { Injectable } from '@nestjs/common';
import type { Page } from '../shared/page';
import { AdminReadRecorder, filterArguments } from './admin-read-recorder';
import { type AuditFilter, AuditReader, type AuditRecord } from './ports/audit-reader.port';

@Injectable()
export class ListAuditLogsUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /** Newest first; the read is audited. */
  execute(input: { adminId: string; filter: AuditFilter; limit: number; cursor: string | null }): Promise<Page<AuditRecord>> {
    const { adminId, filter, limit, cursor } = input;
    return this.recorder.around(
      { adminId, tool: 'admin.audit_logs.list', arguments: { ...filterArguments(filter), limit, cursor } },
      () => this.reader.list(filter, limit, cursor),
      (page) => ({ items: page.items.length, more: page.nextCursor !== null }),
    );
  }
}
