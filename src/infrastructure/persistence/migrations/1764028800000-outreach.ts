import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Outreach1764028800000 implements MigrationInterface {
  name = 'Outreach1764028800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE campaigns (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(120) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'completed')),
        limit_profile_lookup integer NOT NULL CHECK (limit_profile_lookup >= 0),
        limit_linkedin_message integer NOT NULL CHECK (limit_linkedin_message >= 0),
        limit_email integer NOT NULL CHECK (limit_email >= 0),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await db.query(`CREATE INDEX campaigns_owner_recent_idx ON campaigns (owner_id, created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE leads (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        linkedin_url varchar(200) NOT NULL,
        email varchar(254),
        status varchar(16) NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'in_progress', 'done', 'do_not_contact')),
        created_at timestamptz NOT NULL,
        UNIQUE (campaign_id, linkedin_url)
      )`);
    await db.query(`
      CREATE TABLE outreach_tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
        type varchar(32) NOT NULL CHECK (type IN ('ScrapeProfile', 'SendLinkedInMessage', 'SendEmail')),
        step smallint NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('Pending', 'InProgress', 'Completed', 'Failed', 'Cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        next_run_at timestamptz NOT NULL,
        lease_owner varchar(64),
        lease_expires_at timestamptz,
        output jsonb,
        last_error varchar(64),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await db.query(`CREATE INDEX outreach_tasks_due_idx ON outreach_tasks (next_run_at) WHERE status IN ('Pending', 'InProgress')`);
    await db.query(`CREATE INDEX outreach_tasks_campaign_idx ON outreach_tasks (campaign_id, status)`);
    await db.query(`CREATE INDEX outreach_tasks_lead_idx ON outreach_tasks (lead_id, step)`);
    // One row per channel action, written with its pending audit row before the action runs.
    await db.query(`
      CREATE TABLE outreach_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        task_id uuid NOT NULL REFERENCES outreach_tasks (id) ON DELETE CASCADE,
        campaign_id uuid NOT NULL,
        owner_id uuid NOT NULL,
        decision_id uuid NOT NULL,
        action varchar(32) NOT NULL,
        kind varchar(32) NOT NULL,
        channel varchar(16) NOT NULL,
        target varchar(254) NOT NULL,
        args jsonb NOT NULL,
        idempotency_key char(64) NOT NULL UNIQUE,
        status varchar(16) NOT NULL CHECK (status IN ('in_flight', 'succeeded', 'failed', 'unknown')),
        pending_audit_seq bigint NOT NULL,
        lease_expires_at timestamptz NOT NULL,
        result jsonb,
        error_code varchar(64),
        created_at timestamptz NOT NULL,
        finished_at timestamptz
      )`);
    await db.query(`CREATE INDEX outreach_actions_in_flight_idx ON outreach_actions (lease_expires_at) WHERE status = 'in_flight'`);
    await db.query(`CREATE INDEX outreach_actions_task_idx ON outreach_actions (task_id)`);
    // Reserved slots per scope (a campaign, or its owner across campaigns), kind and UTC day.
    await db.query(`
      CREATE TABLE quota_ledger (
        scope varchar(16) NOT NULL CHECK (scope IN ('campaign', 'owner')),
        scope_id uuid NOT NULL,
        kind varchar(32) NOT NULL,
        day date NOT NULL,
        used integer NOT NULL CHECK (used >= 0),
        "limit" integer NOT NULL,
        PRIMARY KEY (scope, scope_id, kind, day)
      )`);
    await db.query(`
      CREATE TABLE do_not_contact (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind varchar(16) NOT NULL CHECK (kind IN ('email', 'linkedin')),
        value varchar(254) NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (owner_id, value)
      )`);
    // The sandbox channels: a simulated LinkedIn and an outbox, so campaigns run with no account.
    await db.query(`
      CREATE TABLE sandbox_linkedin_actions (
        idempotency_key char(64) PRIMARY KEY,
        kind varchar(16) NOT NULL CHECK (kind IN ('profile', 'message')),
        profile_url varchar(200) NOT NULL,
        message text,
        result jsonb NOT NULL,
        calls integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE sandbox_email_outbox (
        idempotency_key char(64) PRIMARY KEY,
        message_id varchar(200) NOT NULL,
        to_address varchar(254) NOT NULL,
        subject varchar(200) NOT NULL,
        body text NOT NULL,
        calls integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Failures the sandbox is told to simulate: target is a profile URL, an email or '*'.
    await db.query(`
      CREATE TABLE sandbox_faults (
        id bigserial PRIMARY KEY,
        channel varchar(16) NOT NULL CHECK (channel IN ('linkedin', 'email')),
        target varchar(254) NOT NULL,
        code varchar(32) NOT NULL,
        remaining integer NOT NULL DEFAULT 1
      )`);
    // What the SMTP adapter handed to the server, by idempotency key.
    await db.query(`
      CREATE TABLE email_deliveries (
        idempotency_key char(64) PRIMARY KEY,
        message_id varchar(200) NOT NULL,
        response text NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const table of ['audit_log', 'decision_logs']) {
      await db.query(`ALTER TABLE ${table} ADD COLUMN campaign_id uuid, ADD COLUMN outreach_task_id uuid`);
    }
    await db.query(`ALTER TABLE decision_logs ALTER COLUMN decision_type TYPE varchar(40)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'decision_logs']) {
      await db.query(`ALTER TABLE ${table} DROP COLUMN campaign_id, DROP COLUMN outreach_task_id`);
    }
    for (const table of [
      'email_deliveries',
      'sandbox_faults',
      'sandbox_email_outbox',
      'sandbox_linkedin_actions',
      'do_not_contact',
      'quota_ledger',
      'outreach_actions',
      'outreach_tasks',
      'leads',
      'campaigns',
    ]) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
