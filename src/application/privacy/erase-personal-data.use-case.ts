import { Injectable } from '@nestjs/common';
import {
  ErasureAccountNotFoundError,
  type ErasureCounts,
  ErasureInvalidEmailError,
  type ErasureKind,
  ErasureLeadNotFoundError,
} from '../../domain/privacy/erasure';
import { emailKey } from '../../domain/shared/email-address';
import { auditedChange } from '../audit/audited-change';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { ErasureStore } from './ports/erasure-store.port';

/** Who asks: an admin may erase anyone's; anyone else only their own account or their campaigns' leads. */
export interface Eraser {
  readonly actorId: string;
  readonly admin: boolean;
}

/**
 * Erases an account, a lead or an email address (docs/decisions/0017-erasure-and-retention.md),
 * audited as a change of its own: a pending row before, an outcome row after with how many
 * rows it touched per place. Neither row holds the data: the arguments name the account or
 * the lead by id, and an email erasure names no address at all.
 */
@Injectable()
export class ErasePersonalDataUseCase {
  constructor(
    private readonly store: ErasureStore,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** The account and everything of it; an admin names any account, anyone else their own. */
  eraseAccount(eraser: Eraser, userId: string): Promise<ErasureCounts> {
    return this.audited(eraser, 'account', { userId }, async (at) => {
      if (!eraser.admin && eraser.actorId !== userId) throw new ErasureAccountNotFoundError();
      const counts = await this.store.eraseAccount(userId, { by: eraser.actorId, at });
      if (counts === null) throw new ErasureAccountNotFoundError();
      return counts;
    });
  }

  eraseLead(eraser: Eraser, campaignId: string, leadId: string): Promise<ErasureCounts> {
    return this.audited(eraser, 'lead', { campaignId, leadId }, async (at) => {
      const counts = await this.store.eraseLead(campaignId, leadId, eraser.admin ? null : eraser.actorId, { by: eraser.actorId, at });
      if (counts === null) throw new ErasureLeadNotFoundError();
      return counts;
    });
  }

  /** The address in its canonical form (`Jane@Example.COM` is `jane@example.com`): all leads and mentions of it. */
  async eraseEmail(eraser: Eraser, email: string): Promise<ErasureCounts> {
    const key = emailKey(email);
    // Refused before anything is written: the audit row could only say "not an address".
    if (key === null) throw new ErasureInvalidEmailError();
    return this.audited(eraser, 'email', {}, (at) =>
      this.store.eraseByEmail(key, eraser.admin ? null : eraser.actorId, { by: eraser.actorId, at }),
    );
  }

  private audited(
    eraser: Eraser,
    kind: ErasureKind,
    args: Readonly<Record<string, string>>,
    erase: (at: Date) => Promise<ErasureCounts>,
  ): Promise<ErasureCounts> {
    const entry: ToolAuditEntry = {
      source: eraser.admin ? 'admin' : 'account',
      actorId: eraser.actorId,
      tool: `erasure.${kind}`,
      arguments: { kind, ...args },
      securityEvents: [],
    };
    return auditedChange({ auditLog: this.auditLog, clock: this.clock }, entry, async (at) => {
      const counts = await erase(at);
      // erasedAt is the stamp on every row it emptied: full verification pairs them (firstUnexplainedErasure).
      return { result: { ...counts, erasedAt: at.toISOString() }, value: counts };
    });
  }
}
