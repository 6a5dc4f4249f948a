import type { DataSource } from 'typeorm';
import type { EmailDeliveryLog } from './smtp-email-channel';

/** The SMTP adapter's record of accepted deliveries, in email_deliveries. */
export class PostgresEmailDeliveryLog implements EmailDeliveryLog {
  constructor(private readonly dataSource: DataSource) {}

  async find(idempotencyKey: string): Promise<{ messageId: string } | null> {
    const rows = await this.dataSource.query<{ message_id: string }[]>(
      `SELECT message_id FROM email_deliveries WHERE idempotency_key = $1`,
      [idempotencyKey],
    );
    return rows[0] ? { messageId: rows[0].message_id } : null;
  }

  async record(idempotencyKey: string, delivery: { messageId: string; response: string }): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO email_deliveries (idempotency_key, message_id, response) VALUES ($1, $2, $3) ON CONFLICT (idempotency_key) DO NOTHING`,
      [idempotencyKey, delivery.messageId, delivery.response.slice(0, 1000)],
    );
  }
}
