import type { ChannelActionDescriptor } from '../../../domain/outreach/action-catalog';
import type { ProfileField } from '../../../domain/outreach/actions';
import type { ActionKind } from '../../../domain/outreach/outreach-task';

/** Every channel call carries the action's idempotency key and the cycle's deadline. */
export interface ChannelCall {
  readonly idempotencyKey: string;
  readonly signal: AbortSignal;
}

export type Profile = Readonly<Partial<Record<ProfileField, string | null>>>;

/** What a channel did under an idempotency key. */
export type ChannelRecord =
  { readonly kind: 'profile'; readonly profile: Profile } | { readonly kind: 'message'; readonly messageId: string };

/** `null`: nothing happened under that key; `'unknowable'`: the channel cannot tell. */
export type ChannelLookup = ChannelRecord | null | 'unknowable';

/**
 * One action as its channel is handed it: its name, its kind, and its arguments as they go
 * out (an email's body already ends with the unsubscribe footer, whose link is `unsubscribeUrl`).
 */
export interface ChannelRequest extends ChannelCall {
  readonly action: string;
  readonly kind: ActionKind;
  readonly args: Readonly<Record<string, unknown>>;
  /** An email's unsubscribe link (List-Unsubscribe, RFC 8058); null for an action that is no email. */
  readonly unsubscribeUrl: string | null;
}

/**
 * A way to reach people: LinkedIn, email, or any other. Each adapter is one binding of the
 * outreach module's channel list (OUTREACH_CHANNELS), and OutreachChannels routes each action
 * to the one channel that performs its kind: an action whose kind no channel performs is
 * refused, never sent through another. Adapters throw only ChannelError
 * (domain/outreach/channel-errors.ts) for expected failures.
 */
export abstract class OutreachChannel {
  /** The adapter, as each action records it: 'sandbox', 'smtp', 'mcp' … */
  abstract readonly name: string;
  /** The kinds of action it performs: its quota kinds (profile_lookup, email …). */
  abstract readonly kinds: readonly ActionKind[];
  /**
   * The actions it brings beside the built-in ones (a kind of its own needs one): each one's
   * name, contract and task type. The built-in channels bring none: theirs are ACTION_CONTRACTS.
   */
  readonly actions?: readonly ChannelActionDescriptor[];
  /** Performs the action once per key: a second call with the same key performs nothing and answers as the first. */
  abstract perform(request: ChannelRequest): Promise<ChannelRecord>;
  /** What it did under the key (the look-up after a failure, and the verification of a message). */
  abstract find(idempotencyKey: string): Promise<ChannelLookup>;
  /** A channel that keeps a session uses a fresh one (from the secret store) from now on. */
  useSession?(session: string): Promise<void>;
  /** Called once, at shutdown. */
  close?(): Promise<void> | void;
}

/** One outreach email, as the email channels are handed it. */
export interface OutgoingEmail {
  readonly to: string;
  readonly subject: string;
  /** The text to send as it is: it already ends with the unsubscribe footer (domain/outreach/unsubscribe.ts). */
  readonly body: string;
  /** The link in that footer: a channel that writes headers announces it (List-Unsubscribe, RFC 8058). */
  readonly unsubscribeUrl: string;
}

/** The email a `send_email` request carries. */
export function emailOf(request: ChannelRequest): OutgoingEmail {
  const { to, subject, body } = request.args as { to: string; subject: string; body: string };
  return { to, subject, body, unsubscribeUrl: request.unsubscribeUrl ?? '' };
}

export class SecretNotFoundError extends Error {
  constructor(readonly secretName: string) {
    super(`No secret named ${secretName}`);
    this.name = 'SecretNotFoundError';
  }
}

/** Where channel sessions come from (a vault, the environment, the sandbox). */
export abstract class SecretStore {
  /** @throws SecretNotFoundError */
  abstract fetch(secretName: string): Promise<string>;
}
