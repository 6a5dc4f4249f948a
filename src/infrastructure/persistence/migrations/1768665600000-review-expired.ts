import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A task whose draft a policy rule's reviewer did not decide in time (fallback `reject`) is
 * Cancelled with `last_error` REVIEW_EXPIRED, as its draft is `expired`: nobody refused it. The
 * tasks cancelled so before carried REVIEW_TIMED_OUT, which meant the same and nothing else, so
 * they are carried over; no audit row holds the code (their hashes are untouched). Undone, they
 * carry REVIEW_TIMED_OUT again.
 */
export class ReviewExpired1768665600000 implements MigrationInterface {
  name = 'ReviewExpired1768665600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE outreach_tasks SET last_error = 'REVIEW_EXPIRED' WHERE last_error = 'REVIEW_TIMED_OUT'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE outreach_tasks SET last_error = 'REVIEW_TIMED_OUT' WHERE last_error = 'REVIEW_EXPIRED'`);
  }
}
