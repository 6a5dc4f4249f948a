import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A task's type is no longer one of the three built-in ones: a channel added beside them
 * declares its own (`SendSms` …, see ActionCatalog), so the check asks only for the shape of a
 * type (a capital, then letters and digits), as the catalog does. Undone, the built-in list
 * is checked again, which fails while a task of another type is left.
 */
export class OpenTaskTypes1768838400000 implements MigrationInterface {
  name = 'OpenTaskTypes1768838400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE outreach_tasks DROP CONSTRAINT outreach_tasks_type_check`);
    await db.query(`ALTER TABLE outreach_tasks ADD CONSTRAINT outreach_tasks_type_check CHECK (type ~ '^[A-Z][A-Za-z0-9]{0,31}$')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE outreach_tasks DROP CONSTRAINT outreach_tasks_type_check`);
    await db.query(
      `ALTER TABLE outreach_tasks ADD CONSTRAINT outreach_tasks_type_check CHECK (type IN ('ScrapeProfile', 'SendLinkedInMessage', 'SendEmail'))`,
    );
  }
}
