import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * Until the deliverer has recorded every mail it sent to `userId` (at most `withinMs`): a
 * person's quiet period starts at the service's clock when the mail is recorded, so a test that
 * moves a shifted clock on before then would start it later than it means to.
 */
export async function mailsRecorded(app: INestApplication, userId: string, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  const unsettled = async () =>
    Number(
      (
        await app
          .get(DataSource)
          .query<{ n: string }[]>(
            `SELECT count(*) AS n FROM notification_mailboxes WHERE user_id = $1 AND (pending_seqs IS NOT NULL OR last_sent_at IS NULL)`,
            [userId],
          )
      )[0].n,
    );
  while ((await unsettled()) > 0) {
    if (Date.now() > deadline) throw new Error(`the mail to ${userId} was not recorded within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
