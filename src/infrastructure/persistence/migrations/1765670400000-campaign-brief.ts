import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign's brief (offer, tone, call to action, sender name, signature) and its message
 * templates (LinkedIn message, email subject and body): optional text each, null when not
 * set, with the lengths the domain allows (src/domain/outreach/brief.ts). Existing campaigns
 * have none.
 */
export class CampaignBrief1765670400000 implements MigrationInterface {
  name = 'CampaignBrief1765670400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE campaigns
      ADD COLUMN brief_offer text CHECK (char_length(brief_offer) <= 1000),
      ADD COLUMN brief_tone text CHECK (char_length(brief_tone) <= 100),
      ADD COLUMN brief_call_to_action text CHECK (char_length(brief_call_to_action) <= 300),
      ADD COLUMN brief_sender_name text CHECK (char_length(brief_sender_name) <= 100),
      ADD COLUMN brief_signature text CHECK (char_length(brief_signature) <= 300),
      ADD COLUMN template_linkedin_message text CHECK (char_length(template_linkedin_message) <= 1900),
      ADD COLUMN template_email_subject text CHECK (char_length(template_email_subject) <= 200),
      ADD COLUMN template_email_body text CHECK (char_length(template_email_body) <= 5000)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE campaigns
      DROP COLUMN brief_offer, DROP COLUMN brief_tone, DROP COLUMN brief_call_to_action, DROP COLUMN brief_sender_name,
      DROP COLUMN brief_signature, DROP COLUMN template_linkedin_message, DROP COLUMN template_email_subject,
      DROP COLUMN template_email_body`);
  }
}
