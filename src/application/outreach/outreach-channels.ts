import { ActionCatalog } from '../../domain/outreach/action-catalog';
import { type AddedAction, isBuiltIn, type Proposal } from '../../domain/outreach/actions';
import { ACTION_KINDS, type ActionKind } from '../../domain/outreach/outreach-task';
import { withUnsubscribeFooter } from '../../domain/outreach/unsubscribe';
import { type ChannelLookup, type ChannelRecord, type OutreachChannel } from './ports/channels.port';
import { type UnsubscribeLinks } from './unsubscribe/unsubscribe-links';

/** A proposal that reaches people through a channel: one whose contract meters a kind. */
export type ChannelAction =
  | Extract<Proposal, { action: 'linkedin_scrape_profile' | 'linkedin_send_message' | 'send_email' }>
  | (AddedAction & { readonly reason: string });

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

/** An action whose kind no channel performs: refused, never sent through another channel. */
export class NoChannelError extends Error {
  constructor(readonly kind: ActionKind) {
    super(`No channel performs ${kind} actions`);
    this.name = 'NoChannelError';
  }
}

/** Profile fields a look-up must find; an email is often hidden, so it may be missing. */
const OPTIONAL_PROFILE_FIELDS = new Set(['email']);

/**
 * The channels behind the actions that reach people, keyed by the kind of action each
 * performs, and how their effect is verified. Built from the outreach module's channel list
 * (OUTREACH_CHANNELS, by a factory); two channels for one kind refuse the start.
 */
export class OutreachChannels {
  private readonly byKind = new Map<ActionKind, OutreachChannel>();
  /** Every action a cycle may take: the built-in ones and those the channels declare. */
  readonly actions: ActionCatalog;

  constructor(
    channels: readonly OutreachChannel[],
    private readonly unsubscribe: UnsubscribeLinks,
  ) {
    for (const channel of channels) {
      for (const kind of channel.kinds) {
        const taken = this.byKind.get(kind);
        if (taken) throw new Error(`Two outreach channels perform ${kind} actions: ${taken.name} and ${channel.name}`);
        this.byKind.set(kind, channel);
      }
    }
    this.actions = new ActionCatalog(channels.flatMap((channel) => channel.actions ?? []));
  }

  isChannelAction(proposal: Proposal): proposal is ChannelAction {
    return (this.actions.contract(proposal.action)?.kind ?? null) !== null;
  }

  /** The kind of action a channel action is, as its contract meters it. */
  kindOf(proposal: ChannelAction): ActionKind {
    return this.actions.contract(proposal.action)!.kind!;
  }

  /** The channel that performs `kind`, or null when none does (the action is then refused). */
  channelFor(kind: ActionKind): OutreachChannel | null {
    return this.byKind.get(kind) ?? null;
  }

  /** The name of the channel that performs the action (recorded with it). @throws NoChannelError */
  nameFor(proposal: ChannelAction): string {
    return this.route(proposal).name;
  }

  /** The kinds a campaign may limit: the built-in ones, and those of every channel in service. */
  kinds(): ActionKind[] {
    return [...new Set([...ACTION_KINDS, ...this.byKind.keys()])];
  }

  /** Every channel, once each: for a fresh session, and for shutdown. */
  all(): OutreachChannel[] {
    return [...new Set(this.byKind.values())];
  }

  /**
   * The action as its channel is given it, for the task's `sent` record: an email's body
   * with its unsubscribe footer. The same every time for the same action and sender, so the
   * cycle and the sweeper record the text that went out. The idempotency key is the
   * proposal's, not this.
   */
  asSent(proposal: ChannelAction, sender: ActionSender): ChannelAction {
    if (!isBuiltIn(proposal) || proposal.action !== 'send_email') return proposal;
    const body = withUnsubscribeFooter(proposal.args.body, this.unsubscribeUrl(proposal, sender));
    return { ...proposal, args: { ...proposal.args, body } };
  }

  /** Runs the action on the one channel of its kind. @throws NoChannelError, or what the channel throws */
  perform(proposal: ChannelAction, idempotencyKey: string, signal: AbortSignal, sender: ActionSender): Promise<ChannelRecord> {
    const channel = this.route(proposal);
    // Every email, whatever its channel, carries the footer and its link.
    const unsubscribeUrl = isBuiltIn(proposal) && proposal.action === 'send_email' ? this.unsubscribeUrl(proposal, sender) : null;
    const { args } = this.asSent(proposal, sender);
    return channel.perform({
      action: proposal.action,
      kind: this.kindOf(proposal),
      args,
      unsubscribeUrl,
      idempotencyKey,
      signal,
    });
  }

  private unsubscribeUrl(proposal: Extract<ChannelAction, { action: 'send_email' }>, sender: ActionSender): string {
    return this.unsubscribe.url({ ownerId: sender.ownerId, campaignId: sender.campaignId, email: proposal.args.to });
  }

  /** What the action's channel did under the key; a failing look-up (or no channel) is 'unknowable', never a throw. */
  async lookup(proposal: ChannelAction, idempotencyKey: string): Promise<ChannelLookup> {
    try {
      return await this.route(proposal).find(idempotencyKey);
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
    if (isBuiltIn(proposal) && proposal.action === 'linkedin_scrape_profile') {
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

  private route(proposal: ChannelAction): OutreachChannel {
    const kind = this.kindOf(proposal);
    const channel = this.byKind.get(kind);
    if (!channel) throw new NoChannelError(kind);
    return channel;
  }
}
