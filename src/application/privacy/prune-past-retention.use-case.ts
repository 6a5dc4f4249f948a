import { Injectable } from '@nestjs/common';
import { Clock } from '../shared/ports/clock.port';
import { Logger } from '../shared/ports/logger.port';
import { type PrunedBatch, RetentionStore } from './ports/retention-store.port';

/** How long each kind is kept, and whether a legal hold stops pruning altogether. */
export abstract class RetentionSettings {
  abstract readonly auditDays: number;
  abstract readonly conversationDays: number;
  abstract readonly outreachDays: number;
  abstract readonly notificationDays: number;
  abstract readonly legalHold: boolean;
}

export interface RetentionReport {
  readonly held: boolean;
  readonly auditRows: number;
  /** The checkpoint position the audit log is pruned up to; null when it never was. */
  readonly auditHorizon: number | null;
  readonly conversations: number;
  readonly campaigns: number;
  readonly notifications: number;
}

const DAY_MS = 86_400_000;
const BATCH = 1000;
/** At most this many batches of a kind per run: a first run on a large log finishes over a few runs. */
const MAX_BATCHES = 100;

/**
 * Prunes what is past retention (docs/record-keeping.md): every process offers it at start and
 * every RETENTION_INTERVAL_MINUTES; each batch takes the store's lock or leaves, so replicas
 * never prune the same rows twice. A legal hold (RETENTION_LEGAL_HOLD) prunes nothing.
 */
@Injectable()
export class PrunePastRetentionUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: RetentionStore,
    private readonly settings: RetentionSettings,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext(PrunePastRetentionUseCase.name);
  }

  async run(): Promise<RetentionReport> {
    if (this.settings.legalHold) return { held: true, auditRows: 0, auditHorizon: null, conversations: 0, campaigns: 0, notifications: 0 };
    const now = this.clock.now().getTime();
    const before = (days: number) => new Date(now - days * DAY_MS);
    let auditHorizon: number | null = null;
    const auditRows = await this.batches(
      (batch) => this.store.pruneAudit(before(this.settings.auditDays), batch),
      (pruned) => {
        auditHorizon = pruned.horizon ?? auditHorizon;
      },
    );
    const conversations = await this.batches((batch) => this.store.pruneConversations(before(this.settings.conversationDays), batch));
    const campaigns = await this.batches((batch) => this.store.pruneOutreach(before(this.settings.outreachDays), batch));
    const notifications = await this.batches((batch) => this.store.pruneNotifications(before(this.settings.notificationDays), batch));
    const report = { held: false, auditRows, auditHorizon, conversations, campaigns, notifications };
    if (auditRows + conversations + campaigns + notifications > 0) this.logger.info({ msg: 'pruned what is past retention', ...report });
    return report;
  }

  private async batches(prune: (batch: number) => Promise<PrunedBatch | null>, seen?: (pruned: PrunedBatch) => void): Promise<number> {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const pruned = await prune(BATCH);
      if (pruned === null) break;
      seen?.(pruned);
      total += pruned.rows;
      if (pruned.rows < BATCH) break;
    }
    return total;
  }
}
