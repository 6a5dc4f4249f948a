import { Injectable } from '@nestjs/common';
import type { Page } from '../shared/page';
import { AdminReadRecorder, filterArguments } from './admin-read-recorder';
import { AuditReader, type DecisionFilter, type DecisionRecord } from './ports/audit-reader.port';

@Injectable()
export class ListDecisionsUseCase {
  constructor(
    private readonly reader: AuditReader,
    private readonly recorder: AdminReadRecorder,
  ) {}

  /** Newest first; the read is audited. */
  execute(input: { adminId: string; filter: DecisionFilter; limit: number; cursor: string | null }): Promise<Page<DecisionRecord>> {
    const { adminId, filter, limit, cursor } = input;
    return this.recorder.around(
      { adminId, tool: 'admin.decisions.list', arguments: { ...filterArguments(filter), limit, cursor } },
      () => this.reader.listDecisions(filter, limit, cursor),
      (page) => ({ items: page.items.length, more: page.nextCursor !== null }),
    );
  }
}
