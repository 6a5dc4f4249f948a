import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ChannelCall, ChannelLookup, OutgoingEmail } from '../../../application/outreach/ports/channels.port';
import { EmailChannel } from '../email/email-channel';
import { raise, takeFaultAndRecord } from './sandbox-faults';
import { z } from 'zod';
import { selectRow, sql } from '../../persistence/sql';

const MESSAGE_ROW = z.object({ message_id: z.string() });

/**
 * An outbox table instead of an SMTP server: every email is kept once per idempotency key,
 * its body as sent (the unsubscribe footer included). It has no headers, so the link is
 * only in the body.
 */
@Injectable()
export class SandboxEmailChannel extends EmailChannel {
  readonly name = 'sandbox';

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async send(input: ChannelCall & OutgoingEmail): Promise<{ messageId: string }> {
    const messageId = `<${input.idempotencyKey}@bridle.sandbox>`;
    const { fault, recorded } = await takeFaultAndRecord(this.dataSource, {
      channel: 'email',
      target: input.to,
      signal: input.signal,
      recordedUnder: ['HANG_AFTER'],
      effect: {
        insert: sql`INSERT INTO sandbox_email_outbox (idempotency_key, message_id, to_address, subject, body)`,
        values: sql`${input.idempotencyKey}::varchar, ${messageId}::varchar, ${input.to}::varchar, ${input.subject}::text, ${input.body}::text`,
        onConflict: sql`ON CONFLICT (idempotency_key) DO UPDATE SET calls = sandbox_email_outbox.calls + 1 RETURNING message_id`,
        row: MESSAGE_ROW,
      },
    });
    if (fault === 'UNVERIFIABLE') return { messageId };
    if (fault === 'HANG_AFTER') await raise(fault, input.signal);
    return { messageId: recorded!.message_id };
  }

  async find(idempotencyKey: string): Promise<ChannelLookup> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT message_id FROM sandbox_email_outbox WHERE idempotency_key = ${idempotencyKey}`,
      MESSAGE_ROW,
    );
    return row ? { kind: 'message', messageId: row.message_id } : null;
  }
}
