import {
  type ChannelCall,
  type ChannelRecord,
  type ChannelRequest,
  emailOf,
  type OutgoingEmail,
  OutreachChannel,
} from '../../../application/outreach/ports/channels.port';
import type { ActionKind } from '../../../domain/outreach/outreach-task';

/** An email adapter: it performs the `email` kind by sending the request's email. */
export abstract class EmailChannel extends OutreachChannel {
  readonly kinds: readonly ActionKind[] = ['email'];

  async perform(request: ChannelRequest): Promise<ChannelRecord> {
    return {
      kind: 'message',
      ...(await this.send({ ...emailOf(request), idempotencyKey: request.idempotencyKey, signal: request.signal })),
    };
  }

  /** Sends once per key: a second call with the same key sends nothing and returns the first id. */
  abstract send(input: ChannelCall & OutgoingEmail): Promise<{ messageId: string }>;
}
