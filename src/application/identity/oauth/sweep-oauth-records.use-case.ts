import { Injectable } from '@nestjs/common';
import { Clock } from '../../shared/ports/clock.port';
import { Logger } from '../../shared/ports/logger.port';
import { OAuthStore, type OAuthSweepKind } from './ports/oauth-store.port';

/** How long a record is kept after it stopped working: long enough to answer "why was I signed out?". */
const OAUTH_RETENTION_MS = 7 * 24 * 3_600_000;

const BATCH = 500;

/** In this order: a grant or request deleted first leaves its client free to go in the same run. */
const KINDS: readonly OAuthSweepKind[] = ['tokens', 'grants', 'requests', 'clients'];

export type OAuthSweepReport = Record<OAuthSweepKind, number>;

/**
 * Deletes the authorization server's records a week after they stopped working: tokens
 * past their expiry, grants revoked (with their tokens and codes), authorization requests
 * past their expiry (with their codes), and clients that registered a week ago and hold no
 * grant and no request. Without it every refresh leaves two rows behind, and anyone may
 * register clients, so the tables would only grow. What a person did with an app (consent,
 * revocation) stays in the audit log; nothing deleted here could still be used.
 */
@Injectable()
export class SweepOAuthRecordsUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: OAuthStore,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext(SweepOAuthRecordsUseCase.name);
  }

  async run(): Promise<OAuthSweepReport> {
    const before = new Date(this.clock.now().getTime() - OAUTH_RETENTION_MS);
    const report: OAuthSweepReport = { tokens: 0, grants: 0, requests: 0, clients: 0 };
    for (const kind of KINDS) {
      for (;;) {
        const deleted = await this.store.sweep(kind, before, BATCH);
        report[kind] += deleted;
        if (deleted < BATCH) break;
      }
    }
    if (KINDS.some((kind) => report[kind] > 0))
      this.logger.info({ msg: 'deleted OAuth records that stopped working a week ago', ...report });
    return report;
  }
}
