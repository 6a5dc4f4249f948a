import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EmailChannel, type ChannelCall, type ChannelLookup } from '../../../application/outreach/ports/channels.port';
import { ChannelError } from '../../../domain/outreach/channel-errors';
import { raise, takeFault } from './sandbox-faults';

/** An outbox table instead of an SMTP server: every email is kept once per idempotency key. */
@Injectable()
export class SandboxEmailChannel extends EmailChannel {
  readonly name = 'sandbox';

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async send(input: ChannelCall & { to: string; subject: string; body: string }): Promise<{ messageId: string }> {
    if (input.signal.aborted) throw new ChannelError('TIMEOUT', 'The deadline passed before the call', 'no');
    const fault = await takeFault(this.dataSource, 'email', input.to);
    if (fault && fault !== 'HANG_AFTER' && fault !== 'UNVERIFIABLE') await raise(fault, input.signal);
    const messageId = `<${input.idempotencyKey}@bridle.sandbox>`;
    if (fault === 'UNVERIFIABLE') return { messageId };
    const rows = await this.dataSource.query<{ message_id: string }[]>(
      `INSERT INTO sandbox_email_outbox (idempotency_key, message_id, to_address, subject, body) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (idempotency_key) DO UPDATE SET calls = sandbox_email_outbox.calls + 1
       RETURNING message_id`,
      [input.idempotencyKey, messageId, input.to, input.subject, input.body],
    );
    if (fault === 'HANG_AFTER') await raise(fault, input.signal);
    return { messageId: rows[0].message_id };
  }

  async find(idempotencyKey: string): Promise<ChannelLookup> {
    const rows = await this.dataSource.query<{ message_id: string }[]>(
      `SELECT message_id FROM sandbox_email_outbox WHERE idempotency_key = $1`,
      [idempotencyKey],
    );
    return rows[0] ? { kind: 'message', messageId: rows[0].message_id } : null;
  }
}
