import type { ChannelCall, ChannelRecord, ChannelRequest, Profile } from '../../../application/outreach/ports/channels.port';
import type { ProfileField } from '../../../domain/outreach/actions';
import type { ActionKind } from '../../../domain/outreach/outreach-task';

/** The kinds a LinkedIn channel performs: a profile look-up and a message. */
export const LINKEDIN_KINDS: readonly ActionKind[] = ['profile_lookup', 'linkedin_message'];

/** What a LinkedIn adapter does, in LinkedIn's own words. */
export interface LinkedIn {
  scrapeProfile(input: ChannelCall & { profileUrl: string; fields: readonly ProfileField[] }): Promise<Profile>;
  /** @returns the channel's id for the message. */
  sendMessage(input: ChannelCall & { profileUrl: string; message: string }): Promise<{ messageId: string }>;
}

/** A LinkedIn adapter's `perform`: a request of either of its kinds, as the adapter's own call. */
export async function performOnLinkedIn(linkedin: LinkedIn, request: ChannelRequest): Promise<ChannelRecord> {
  const call = { idempotencyKey: request.idempotencyKey, signal: request.signal };
  if (request.kind === 'profile_lookup') {
    const { profileUrl, fields } = request.args as { profileUrl: string; fields: readonly ProfileField[] };
    return { kind: 'profile', profile: await linkedin.scrapeProfile({ ...call, profileUrl, fields }) };
  }
  const { profileUrl, message } = request.args as { profileUrl: string; message: string };
  return { kind: 'message', ...(await linkedin.sendMessage({ ...call, profileUrl, message })) };
}
