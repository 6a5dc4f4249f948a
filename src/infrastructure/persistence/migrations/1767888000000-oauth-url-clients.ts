import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A client_id may be the https URL of the client's metadata document (Client ID Metadata
 * Documents), not only a UUID Bridle gave at registration: the id columns become text of a
 * URL's length (2 000 characters, as every URL a client registers). The references are
 * dropped and made again around the change, as PostgreSQL requires.
 */
export class OAuthUrlClients1767888000000 implements MigrationInterface {
  name = 'OAuthUrlClients1767888000000';

  async up(db: QueryRunner): Promise<void> {
    await this.retype(db, 'varchar(2000)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM oauth_clients WHERE id !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`);
    await this.retype(db, 'uuid');
  }

  private async retype(db: QueryRunner, type: string): Promise<void> {
    await db.query(`ALTER TABLE oauth_authorization_requests DROP CONSTRAINT oauth_authorization_requests_client_id_fkey`);
    await db.query(`ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_client_id_fkey`);
    await db.query(`ALTER TABLE oauth_clients ALTER COLUMN id TYPE ${type} USING id::${type}`);
    await db.query(`ALTER TABLE oauth_authorization_requests ALTER COLUMN client_id TYPE ${type} USING client_id::${type}`);
    await db.query(`ALTER TABLE oauth_grants ALTER COLUMN client_id TYPE ${type} USING client_id::${type}`);
    await db.query(
      `ALTER TABLE oauth_authorization_requests ADD CONSTRAINT oauth_authorization_requests_client_id_fkey FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`,
    );
    await db.query(
      `ALTER TABLE oauth_grants ADD CONSTRAINT oauth_grants_client_id_fkey FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`,
    );
  }
}
