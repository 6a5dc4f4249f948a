import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { run, selectRow, sql } from '../../persistence/sql';
import type { EmailDeliveryLog } from './smtp-email-channel';

const DELIVERY_ROW = z.object({ message_id: z.string() });

/** The SMTP adapter's record of accepted deliveries, in email_deliveries. */
export class PostgresEmailDeliveryLog implements EmailDeliveryLog {
  constructor(private readonly dataSource: DataSource) {}

  async find(idempotencyKey: string): Promise<{ messageId: string } | null> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT message_id FROM email_deliveries WHERE idempotency_key = ${idempotencyKey}`,
      DELIVERY_ROW,
    );
    return row ? { messageId: row.message_id } : null;
  }

  async record(idempotencyKey: string, delivery: { messageId: string; response: string }): Promise<void> {
    await run(
      this.dataSource,
      sql`INSERT INTO email_deliveries (idempotency_key, message_id, response)
          VALUES (${idempotencyKey}, ${delivery.messageId}, ${delivery.response.slice(0, 1000)})
          ON CONFLICT (idempotency_key) DO NOTHING`,
    );
  }
}
