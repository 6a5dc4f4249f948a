import {
  type ChannelLookup,
  type ChannelRecord,
  type ChannelRequest,
  OutreachChannel,
} from '../../../src/application/outreach/ports/channels.port';
import type { ActionKind } from '../../../src/domain/outreach/outreach-task';

/** A third channel, added in test code alone: it performs the `sms` kind and remembers each text by its key. */
export class FakeSmsChannel extends OutreachChannel {
  readonly name = 'fake-sms';
  readonly kinds: readonly ActionKind[] = ['sms'];
  readonly sent = new Map<string, ChannelRequest>();

  perform(request: ChannelRequest): Promise<ChannelRecord> {
    if (!this.sent.has(request.idempotencyKey)) this.sent.set(request.idempotencyKey, request);
    return Promise.resolve({ kind: 'message', messageId: `sms-${request.idempotencyKey.slice(0, 16)}` });
  }

  find(idempotencyKey: string): Promise<ChannelLookup> {
    return Promise.resolve(this.sent.has(idempotencyKey) ? { kind: 'message', messageId: `sms-${idempotencyKey.slice(0, 16)}` } : null);
  }
}
