import {
  type ChannelLookup,
  type ChannelRecord,
  type ChannelRequest,
  OutreachChannel,
} from '../../../src/application/outreach/ports/channels.port';
import type { ChannelActionDescriptor } from '../../../src/domain/outreach/action-catalog';
import type { ActionKind } from '../../../src/domain/outreach/outreach-task';

/** The action the fake SMS channel brings: a text to a phone number, a lead's `SendSms` step. */
export const SEND_SMS: ChannelActionDescriptor = {
  name: 'send_sms',
  taskType: 'SendSms',
  contract: {
    description: 'Send a short text message to the lead',
    kind: 'sms',
    args: {
      type: 'object',
      properties: {
        to: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' },
        text: { type: 'string', minLength: 1, maxLength: 160 },
      },
      required: ['to', 'text'],
      additionalProperties: false,
    },
  },
};

/**
 * A third channel, added in test code alone: it performs the `sms` kind, declares its own
 * action (`send_sms`, SEND_SMS), and remembers each text by its key.
 */
export class FakeSmsChannel extends OutreachChannel {
  readonly name = 'fake-sms';
  readonly kinds: readonly ActionKind[] = ['sms'];
  override readonly actions = [SEND_SMS];
  readonly sent = new Map<string, ChannelRequest>();

  perform(request: ChannelRequest): Promise<ChannelRecord> {
    if (!this.sent.has(request.idempotencyKey)) this.sent.set(request.idempotencyKey, request);
    return Promise.resolve({ kind: 'message', messageId: `sms-${request.idempotencyKey.slice(0, 16)}` });
  }

  find(idempotencyKey: string): Promise<ChannelLookup> {
    return Promise.resolve(this.sent.has(idempotencyKey) ? { kind: 'message', messageId: `sms-${idempotencyKey.slice(0, 16)}` } : null);
  }
}
