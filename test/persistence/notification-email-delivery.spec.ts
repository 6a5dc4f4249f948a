import { Client } from 'pg';
import {
  DeliverNotificationEmailsUseCase,
  MAILBOX_LEASE_MS,
  NotificationEmailSettings,
} from '../../src/application/notifications/deliver-notification-emails.use-case';
import type { User } from '../../src/domain/identity/user';
import type { NewNotification } from '../../src/domain/notifications/notification';
import { SmtpNotificationMailer } from '../../src/infrastructure/notifications/smtp-notification-mailer';
import { PostgresNotificationEmailOutbox } from '../../src/infrastructure/persistence/repositories/postgres-notification-email-outbox';
import { PostgresNotificationPreferences } from '../../src/infrastructure/persistence/repositories/postgres-notification-preferences';
import { enqueueNotification } from '../../src/infrastructure/persistence/tables/notifications';
import { addActiveCampaign } from '../factories/campaigns';
import { addUser } from '../factories/users';
import { FixedClock } from '../fakes/fixed-clock';
import { RecordingLogger } from '../fakes/recording-logger';
import { useOpenDatabase } from '../support/persistence';
import { SmtpTestServer } from '../support/smtp-test-server';
import { usingPostgresServer } from '../support/test-database';

const INTERVAL_MS = 15 * 60_000;
const BASE_URL = 'https://bridle.example.com';

/**
 * Email delivery from the notifications outbox on the database, through a real SMTP server:
 * deliverers of several replicas at once send one mail per person, the first notification
 * after a quiet period at once and the rest as one digest; a failed or interrupted send is
 * sent again, the same mail under the same Message-ID; nothing is lost.
 */
describe(`${DeliverNotificationEmailsUseCase.name} on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let smtp: SmtpTestServer;
  const clock = new FixedClock(new Date());
  const logger = new RecordingLogger();
  const mailers: SmtpNotificationMailer[] = [];

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
  });
  afterAll(async () => {
    for (const mailer of mailers) mailer.close();
    await smtp?.stop();
  });

  /** A deliverer as one replica runs it: its own outbox adapter and its own SMTP connection. */
  function replica(): DeliverNotificationEmailsUseCase {
    const mailer = new SmtpNotificationMailer({ url: smtp.url, from: 'Bridle <notify@bridle.test>' });
    mailers.push(mailer);
    return new DeliverNotificationEmailsUseCase(
      new PostgresNotificationEmailOutbox(db.database),
      mailer,
      clock,
      new NotificationEmailSettings(BASE_URL, INTERVAL_MS),
      logger,
    );
  }

  async function finished(owner: User, name: string, at = clock.now()): Promise<NewNotification> {
    const campaignId = await addActiveCampaign(db.database, owner.id, { now: at, leads: [], campaign: { name } });
    const notification: NewNotification = {
      recipientId: owner.id,
      event: 'campaign.finished',
      subject: { kind: 'campaign', id: campaignId },
      facts: { completed: 3, failed: 1, cancelled: 0 },
      at,
    };
    await enqueueNotification(db.database, notification);
    return notification;
  }

  const waiting = async (userId: string) =>
    (await db.database.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM notification_emails WHERE user_id = $1`, [userId]))[0].n;

  it('mails the first notification at once, and what follows within the interval as one digest, whatever replicas run at once', async () => {
    const owner = await addUser(db.database);
    const [a, b, c] = [replica(), replica(), replica()];
    await finished(owner, 'Spring launch');
    await Promise.all([a.run(), b.run(), c.run()]);
    const first = smtp.notifications(owner.email);
    expect(first).toHaveLength(1);
    expect(first[0].headers.get('subject')).toBe('Campaign finished: Spring launch');
    expect(first[0].text).toContain('Every task is done: 3 completed, 1 failed, 0 cancelled.');
    expect(first[0].headers.get('list-unsubscribe')).toBeUndefined();

    // Within the interval: they wait, whatever polls.
    await finished(owner, 'Summer follow-up');
    await finished(owner, 'Autumn <b>briefing</b>');
    clock.advance(INTERVAL_MS - 60_000);
    await Promise.all([a.run(), b.run(), c.run()]);
    expect(smtp.notifications(owner.email)).toHaveLength(1);
    expect(await waiting(owner.id)).toBe(2);

    clock.advance(60_000);
    await Promise.all([a.run(), b.run(), c.run()]);
    const mails = smtp.notifications(owner.email);
    expect(mails).toHaveLength(2);
    expect(mails[1].headers.get('subject')).toBe('Bridle: 2 notifications');
    expect(mails[1].text).toContain('1. Campaign finished: Summer follow-up');
    expect(mails[1].text).toContain('2. Campaign finished: Autumn <b>briefing</b>');
    // The HTML part escapes what it inserts.
    expect(mails[1].html).toContain('Campaign finished: Autumn &#60;b&#62;briefing&#60;/b&#62;');
    expect(mails[1].html).not.toContain('<b>briefing');
    expect(await waiting(owner.id)).toBe(0);
  });

  it('mails an admins’ notification to every admin but its author, and a person’s to that person only', async () => {
    const [author, other, member] = [
      await addUser(db.database, { role: 'admin' }),
      await addUser(db.database, { role: 'admin' }),
      await addUser(db.database),
    ];
    await enqueueNotification(db.database, {
      recipientId: null,
      event: 'policy.stored',
      subject: { kind: 'policy', version: 999_999 },
      facts: { version: 999_999, rules: 2, actorId: author.id },
      at: clock.now(),
    });
    await replica().run();
    expect(smtp.notifications(other.email).map((mail) => mail.headers.get('subject'))).toEqual(['A new policy version was stored']);
    expect(smtp.notifications(author.email)).toEqual([]);
    expect(smtp.notifications(member.email)).toEqual([]);
  });

  it('leaves out an event the person turned off, also one already waiting, and a notification a day old when first read', async () => {
    const owner = await addUser(db.database);
    const preferences = new PostgresNotificationPreferences(db.database);
    const deliverer = replica();
    await finished(owner, 'Already waiting');
    await preferences.setEmailChoices(owner.id, { 'campaign.finished': false }, clock.now());
    await deliverer.run();
    await finished(owner, 'Turned off');
    await deliverer.run();
    expect(smtp.notifications(owner.email)).toEqual([]);
    expect(await waiting(owner.id)).toBe(0);

    await preferences.setEmailChoices(owner.id, { 'campaign.finished': true }, clock.now());
    await finished(owner, 'Old news', new Date(clock.now().getTime() - 25 * 3_600_000));
    await finished(owner, 'Fresh news');
    await deliverer.run();
    expect(smtp.notifications(owner.email).map((mail) => mail.headers.get('subject'))).toEqual(['Campaign finished: Fresh news']);
  });

  it('sends a refused mail again later, the same notifications under the same Message-ID, and logs no address or body', async () => {
    const owner = await addUser(db.database);
    const deliverer = replica();
    await finished(owner, 'Deferred');
    smtp.use({
      onData: (stream, _session, callback) =>
        stream.on('end', () => callback(Object.assign(new Error('try later'), { responseCode: 451 }))).resume(),
    });
    try {
      await deliverer.run();
    } finally {
      smtp.use({});
    }
    expect(smtp.notifications(owner.email)).toEqual([]);
    const warned = logger.lines.filter((entry) => entry.level === 'warn' && entry.line.userId === owner.id);
    expect(warned.map((entry) => entry.line)).toEqual([
      expect.objectContaining({
        msg: 'notification mail not sent; it is tried again later',
        failures: 1,
        reason: expect.stringContaining('451'),
      }),
    ]);
    expect(JSON.stringify(warned)).not.toMatch(new RegExp(`${owner.email}|Deferred|3 completed`));

    // Its backoff is not over: nothing goes, and nothing is lost.
    await finished(owner, 'Meanwhile');
    clock.advance(10_000);
    await deliverer.run();
    expect(smtp.notifications(owner.email)).toEqual([]);
    clock.advance(30_000);
    await deliverer.run();
    const [retried] = smtp.notifications(owner.email);
    expect(retried.headers.get('subject')).toBe('Campaign finished: Deferred');
    const [{ seq }] = await db.database.query<{ seq: string }[]>(
      `SELECT min(seq)::text AS seq FROM notifications WHERE recipient_id = $1`,
      [owner.id],
    );
    expect(retried.messageId).toBe(`<notify.${owner.id}.${seq}-${seq}@bridle.test>`);
    // The one that came meanwhile waits for the interval.
    expect(await waiting(owner.id)).toBe(1);
  });

  it('sends the recorded digest again, under the same Message-ID, when a deliverer stopped between sending and settling', async () => {
    const owner = await addUser(db.database);
    const outbox = new PostgresNotificationEmailOutbox(db.database);
    const mailer = new SmtpNotificationMailer({ url: smtp.url, from: 'Bridle <notify@bridle.test>' });
    mailers.push(mailer);
    await finished(owner, 'Interrupted');
    // A deliverer gets as far as sending, then its process ends.
    expect(await outbox.fanOut(clock.now(), 500)).toBeGreaterThan(0);
    const claimed = (await outbox.claim(clock.now(), MAILBOX_LEASE_MS, 100)).find((box) => box.userId === owner.id)!;
    const digest = (await outbox.digest(claimed, 50))!;
    await mailer.send({
      to: digest.to,
      messageKey: `notify.${owner.id}.${digest.firstSeq}-${digest.lastSeq}`,
      subject: 's',
      text: 't',
      html: 'h',
    });
    await finished(owner, 'Later');

    const deliverer = replica();
    await deliverer.run();
    expect(smtp.notifications(owner.email)).toHaveLength(1);
    clock.advance(MAILBOX_LEASE_MS);
    await deliverer.run();
    const [sent, again] = smtp.notifications(owner.email);
    expect(again.messageId).toBe(sent.messageId);
    expect(again.headers.get('subject')).toBe('Campaign finished: Interrupted');
    expect(await waiting(owner.id)).toBe(1);
  });

  (usingPostgresServer ? it : it.skip)(
    'mails a notification whose transaction commits after a later one was mailed: none is skipped',
    async () => {
      const owner = await addUser(db.database);
      const deliverer = replica();
      const settings = db.settings;
      if (settings.kind !== 'server') throw new Error('a server database');
      const slow = new Client({ connectionString: settings.url });
      await slow.connect();
      try {
        const campaignId = await addActiveCampaign(db.database, owner.id, { now: clock.now(), leads: [], campaign: { name: 'Slow' } });
        await slow.query('BEGIN');
        await slow.query(
          `INSERT INTO notifications (id, recipient_id, event, subject, facts, created_at)
         VALUES (gen_random_uuid(), $1, 'campaign.finished', jsonb_build_object('kind', 'campaign', 'id', $2::text), '{}', $3)`,
          [owner.id, campaignId, clock.now()],
        );
        await finished(owner, 'Quick');
        await deliverer.run();
        expect(smtp.notifications(owner.email).map((mail) => mail.headers.get('subject'))).toEqual(['Campaign finished: Quick']);
        await slow.query('COMMIT');
      } finally {
        await slow.end();
      }
      clock.advance(INTERVAL_MS);
      await deliverer.run();
      expect(smtp.notifications(owner.email).map((mail) => mail.headers.get('subject'))).toEqual([
        'Campaign finished: Quick',
        'Campaign finished: Slow',
      ]);
    },
  );
});
