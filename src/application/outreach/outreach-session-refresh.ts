import { Injectable } from '@nestjs/common';
import type { Proposal } from '../../domain/outreach/actions';
import { MAX_TASK_ATTEMPTS, retryDelayMs } from '../../domain/outreach/outreach-task';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { auditEntry, leave, type Shown, type StepEnd, type TaskScope } from './cycle';
import { OutreachChannels } from './outreach-channels';
import { SecretNotFoundError, SecretStore } from './ports/channels.port';

export type RefreshSession = Extract<Proposal, { action: 'refresh_session' }>;

/**
 * The refresh_session action: a fresh session from the secret store for each channel that
 * keeps one (LinkedIn's), audited before and after (the secret itself never).
 */
@Injectable()
export class SessionRefresh {
  constructor(
    private readonly channels: OutreachChannels,
    private readonly secrets: SecretStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** Fetches the secret the proposal names and hands it to the channels that keep a session; the task runs again next cycle. */
  async refresh(task: TaskScope, proposal: RefreshSession, shown: Shown): Promise<StepEnd> {
    const { secretName } = proposal.args;
    const audited = auditEntry(task, proposal.action, proposal.args);
    const pendingSeq = await this.audit.recordPending(audited);
    const started = this.clock.now().getTime();
    try {
      const session = await this.secrets.fetch(secretName);
      for (const channel of this.channels.all()) await channel.useSession?.(session);
    } catch (error) {
      if (!(error instanceof SecretNotFoundError)) throw error;
      return this.notFound(task, secretName, audited, pendingSeq, started, shown);
    }
    const durationMs = this.clock.now().getTime() - started;
    // The secret itself is never recorded.
    await this.audit.recordOutcome(pendingSeq, audited, { status: 'succeeded', result: { secretName, refreshed: true }, durationMs });
    return leave(task, { status: 'Pending', nextRunAt: this.clock.now(), lastError: null }, this.clock.now(), {
      status: 'deferred',
      code: null,
      message: 'Fetched a fresh session; the task runs again next cycle.',
      execution: { status: 'succeeded', idempotencyKey: null, durationMs, errorCode: null, result: { secretName, refreshed: true } },
      ...shown,
    });
  }

  /** No secret has that name: audited as failed; the task is tried again later, or failed on its last attempt. */
  private async notFound(
    task: TaskScope,
    secretName: string,
    audited: ToolAuditEntry,
    pendingSeq: number,
    started: number,
    shown: Shown,
  ): Promise<StepEnd> {
    const durationMs = this.clock.now().getTime() - started;
    const message = `There is no secret named ${secretName}.`;
    await this.audit.recordOutcome(pendingSeq, audited, {
      status: 'failed',
      errorCode: 'SECRET_NOT_FOUND',
      errorMessage: message,
      durationMs,
    });
    const giveUp = task.claim.attempts >= MAX_TASK_ATTEMPTS;
    const release = giveUp
      ? ({ status: 'Failed', lastError: 'SECRET_NOT_FOUND' } as const)
      : ({ status: 'Pending', nextRunAt: new Date(started + retryDelayMs(task.claim.attempts)), lastError: 'SECRET_NOT_FOUND' } as const);
    return leave(task, release, this.clock.now(), {
      status: giveUp ? 'failed' : 'deferred',
      code: 'SECRET_NOT_FOUND',
      message,
      execution: { status: 'failed', idempotencyKey: null, durationMs, errorCode: 'SECRET_NOT_FOUND', result: null },
      ...shown,
    });
  }
}
