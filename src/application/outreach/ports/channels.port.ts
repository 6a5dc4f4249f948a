import type { ProfileField } from '../../../domain/outreach/actions';

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

/** Adapters throw only ChannelError (domain/outreach/channel-errors.ts) for expected failures. */
export abstract class LinkedInChannel {
  /** 'sandbox' or 'mcp'. */
  abstract readonly name: string;
  abstract scrapeProfile(input: ChannelCall & { profileUrl: string; fields: readonly ProfileField[] }): Promise<Profile>;
  /** @returns the channel's id for the message. */
  abstract sendMessage(input: ChannelCall & { profileUrl: string; message: string }): Promise<{ messageId: string }>;
  abstract find(idempotencyKey: string): Promise<ChannelLookup>;
  /** Use a fresh session (from the secret store) from now on. */
  abstract useSession(session: string): Promise<void>;
}

/** One outreach email, as the controller hands it to a channel. */
export interface OutgoingEmail {
  readonly to: string;
  readonly subject: string;
  /** The text to send as it is: it already ends with the unsubscribe footer (domain/outreach/unsubscribe.ts). */
  readonly body: string;
  /** The link in that footer: a channel that writes headers announces it (List-Unsubscribe, RFC 8058). */
  readonly unsubscribeUrl: string;
}

export abstract class EmailChannel {
  /** 'sandbox' or 'smtp'. */
  abstract readonly name: string;
  /** Sends once per key: a second call with the same key sends nothing and returns the first id. */
  abstract send(input: ChannelCall & OutgoingEmail): Promise<{ messageId: string }>;
  abstract find(idempotencyKey: string): Promise<ChannelLookup>;
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
