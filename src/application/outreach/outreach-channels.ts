import { Injectable } from '@nestjs/common';
import type { Proposal } from '../../domain/outreach/actions';
import { withUnsubscribeFooter } from '../../domain/outreach/unsubscribe';
import { EmailChannel, LinkedInChannel, type ChannelLookup, type ChannelRecord } from './ports/channels.port';
import { UnsubscribeLinks } from './unsubscribe/unsubscribe-links';

export type ChannelAction = Extract<Proposal, { action: 'linkedin_scrape_profile' | 'linkedin_send_message' | 'send_email' }>;

export interface Verification {
  readonly verified: boolean;
  readonly detail: string;
  /** What the task keeps as its output once verified. */
  readonly output: Readonly<Record<string, unknown>>;
}

/** Whose outreach an action is: the campaign's owner and the campaign (an email's unsubscribe link names both). */
export interface ActionSender {
  readonly ownerId: string;
  readonly campaignId: string;
}

/** Profile fields a look-up must find; an email is often hidden, so it may be missing. */
const OPTIONAL_PROFILE_FIELDS = new Set(['email']);

/** The channels behind the actions that reach people, and how their effect is verified. */
@Injectable()
export class OutreachChannels {
  constructor(
    private readonly linkedin: LinkedInChannel,
    private readonly email: EmailChannel,
    private readonly unsubscribe: UnsubscribeLinks,
  ) {}

  static isChannelAction(proposal: Proposal): proposal is ChannelAction {
    return proposal.action === 'linkedin_scrape_profile' || proposal.action === 'linkedin_send_message' || proposal.action === 'send_email';
  }

  nameFor(proposal: ChannelAction): string {
    return proposal.action === 'send_email' ? this.email.name : this.linkedin.name;
  }

  /**
   * The action as its channel is given it, for the task's `sent` record: an email's body
   * with its unsubscribe footer. The same every time for the same action and sender, so the
   * cycle and the sweeper record the text that went out. The idempotency key is the
   * proposal's, not this.
   */
  asSent(proposal: ChannelAction, sender: ActionSender): ChannelAction {
    if (proposal.action !== 'send_email') return proposal;
    const body = withUnsubscribeFooter(proposal.args.body, this.unsubscribeUrl(proposal, sender));
    return { ...proposal, args: { ...proposal.args, body } };
  }

  async perform(proposal: ChannelAction, idempotencyKey: string, signal: AbortSignal, sender: ActionSender): Promise<ChannelRecord> {
    switch (proposal.action) {
      case 'linkedin_scrape_profile':
        return { kind: 'profile', profile: await this.linkedin.scrapeProfile({ ...proposal.args, idempotencyKey, signal }) };
      case 'linkedin_send_message':
        return { kind: 'message', ...(await this.linkedin.sendMessage({ ...proposal.args, idempotencyKey, signal })) };
      case 'send_email': {
        // Every email, whatever its channel, carries the footer and its link.
        const unsubscribeUrl = this.unsubscribeUrl(proposal, sender);
        const body = withUnsubscribeFooter(proposal.args.body, unsubscribeUrl);
        return { kind: 'message', ...(await this.email.send({ ...proposal.args, body, unsubscribeUrl, idempotencyKey, signal })) };
      }
    }
  }

  private unsubscribeUrl(proposal: Extract<ChannelAction, { action: 'send_email' }>, sender: ActionSender): string {
    return this.unsubscribe.url({ ownerId: sender.ownerId, campaignId: sender.campaignId, email: proposal.args.to });
  }

  /** What the channel did under the key; a failing look-up is 'unknowable', never a throw. */
  async lookup(proposal: ChannelAction, idempotencyKey: string): Promise<ChannelLookup> {
    try {
      return await (proposal.action === 'send_email' ? this.email : this.linkedin).find(idempotencyKey);
    } catch {
      return 'unknowable';
    }
  }

  /**
   * The evidence a task needs to be Completed: the profile's fields are there; a message
   * or email was accepted and the channel finds it by its key. `foundByKey`: the record
   * came from `lookup` already, so it is that evidence and the channel is not asked again.
   */
  async verify(proposal: ChannelAction, idempotencyKey: string, record: ChannelRecord, foundByKey = false): Promise<Verification> {
    if (proposal.action === 'linkedin_scrape_profile') {
      if (record.kind !== 'profile') return { verified: false, detail: 'the channel returned no profile', output: {} };
      const missing = proposal.args.fields.filter((field) => !OPTIONAL_PROFILE_FIELDS.has(field) && !record.profile[field]);
      return missing.length
        ? { verified: false, detail: `the profile lacks ${missing.join(', ')}`, output: { profile: record.profile } }
        : { verified: true, detail: `profile fields present: ${proposal.args.fields.join(', ')}`, output: { profile: record.profile } };
    }
    if (record.kind !== 'message') return { verified: false, detail: 'the channel returned no message id', output: {} };
    const found = foundByKey ? record : await this.lookup(proposal, idempotencyKey);
    if (found === 'unknowable') {
      return {
        verified: true,
        detail: `accepted as ${record.messageId}; this channel cannot be asked by key, so acceptance is the evidence`,
        output: { messageId: record.messageId },
      };
    }
    return found?.kind === 'message'
      ? { verified: true, detail: `accepted as ${found.messageId} and found by its key`, output: { messageId: found.messageId } }
      : {
          verified: false,
          detail: 'the channel accepted the message but does not find it by its key',
          output: { messageId: record.messageId },
        };
  }
}
