import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The highest number of the log: 2^53 − 1, the highest whole number a JSON reader holds exactly. */
const LAST_NUMBER = '9007199254740991';

/**
 * The audit log is numbered from 1 to 2^53 − 1, and so is its chain: a row or a link numbered
 * outside that range cannot be stored any more (docs/audit-log.md, "Every row accounted for").
 * That is the range of the admin API's sequence numbers (a JSON number, exact up to 2^53 − 1).
 *
 * Nothing Bridle runs ever wrote one outside it: `seq` comes from its sequence, which starts
 * at 1, and `position` from the sealer, which counts from the head (0 on an empty chain) up;
 * at thousands of rows a second, 2^53 is a million years away. So such a row can only be one
 * slipped in by the tables' owner. The checks are added NOT VALID and then
 * validated only when no existing row breaks them: a database that already holds a forged row
 * still migrates and starts, the checks refuse every new one, and verify names the old one
 * (its full walk accounts for every row, whatever its number). Nothing is hashed differently:
 * the canonical row and every stored hash stay as they are.
 */
export class AuditNumbering1767744000000 implements MigrationInterface {
  name = 'AuditNumbering1767744000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_numbered CHECK (seq BETWEEN 1 AND ${LAST_NUMBER}) NOT VALID`);
    await db.query(
      `ALTER TABLE audit_chain ADD CONSTRAINT audit_chain_numbered CHECK (position BETWEEN 1 AND ${LAST_NUMBER} AND seq BETWEEN 1 AND ${LAST_NUMBER}) NOT VALID`,
    );
    await db.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM audit_log WHERE seq NOT BETWEEN 1 AND ${LAST_NUMBER}) THEN
          ALTER TABLE audit_log VALIDATE CONSTRAINT audit_log_numbered;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM audit_chain WHERE position NOT BETWEEN 1 AND ${LAST_NUMBER} OR seq NOT BETWEEN 1 AND ${LAST_NUMBER}) THEN
          ALTER TABLE audit_chain VALIDATE CONSTRAINT audit_chain_numbered;
        END IF;
      END $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_chain DROP CONSTRAINT audit_chain_numbered`);
    await db.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_numbered`);
  }
}
