import { Injectable } from '@nestjs/common';
import { UnsubscribeLinkInvalidError, type UnsubscribeSubject } from '../../../domain/outreach/unsubscribe';
import { AuditLog } from '../../audit/ports/audit-log.port';
import { UserRepository } from '../../identity/ports/user-repository.port';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { UnsubscribeLinks } from './unsubscribe-links';

/** The audit row's tool name: an outreach event of the owner's, written by the server. */
export const UNSUBSCRIBE_TOOL = 'unsubscribe';

export interface Unsubscribed {
  readonly email: string;
  /** False when the address was already on the list (a second use of the link, or listed by the owner). */
  readonly added: boolean;
}

/**
 * What an unsubscribe link does, for whoever holds it (no login: the signed link is the
 * permission). Reading it changes nothing; using it puts the address on the campaign owner's
 * do-not-contact list at once, and the next cycle of any task for that address is cancelled.
 */
@Injectable()
export class UnsubscribeUseCase {
  constructor(
    private readonly links: UnsubscribeLinks,
    private readonly campaigns: CampaignRepository,
    private readonly users: UserRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** Whom the link is for, to ask for confirmation. @throws UnsubscribeLinkInvalidError */
  check(token: string): UnsubscribeSubject {
    const subject = this.links.read(token);
    if (!subject) throw new UnsubscribeLinkInvalidError();
    return subject;
  }

  /**
   * Idempotent: a second use finds the address listed and adds nothing (audited again, as
   * `added: false`). An owner whose account is gone sends no more email: nothing to record.
   * @throws UnsubscribeLinkInvalidError
   */
  async execute(token: string): Promise<Unsubscribed> {
    const subject = this.check(token);
    const owner = await this.users.findById(subject.ownerId);
    if (!owner) return { email: subject.email, added: false };
    const now = this.clock.now();
    const entry = await this.campaigns.addDoNotContact(subject.ownerId, { kind: 'email', value: subject.email }, now);
    // The repository answers the listed entry: a new one carries this request's time.
    const added = entry.createdAt.getTime() === now.getTime();
    await this.audit.record(
      {
        source: 'outreach',
        actorId: subject.ownerId,
        campaignId: subject.campaignId,
        tool: UNSUBSCRIBE_TOOL,
        arguments: { email: subject.email, via: 'unsubscribe link' },
        securityEvents: [],
      },
      { status: 'succeeded', result: { doNotContactEntryId: entry.id, added }, durationMs: this.clock.now().getTime() - now.getTime() },
    );
    return { email: subject.email, added };
  }
}
