import { retryDelayMs } from '../../../src/application/notifications/deliver-notification-emails.use-case';
import type { MailItem, SubjectNow } from '../../../src/domain/notifications/mail-items';
import type { NotificationSubject } from '../../../src/domain/notifications/notification';
import { notificationMail } from '../../../src/domain/notifications/notification-mail';
import { NOTIFICATION_SUBJECT } from '../../../src/infrastructure/persistence/tables/notifications';

const BASE = 'https://bridle.example.com';
const NOW = new Date('2026-11-22T09:00:00.000Z');
const DRAFT_ID = '6f1c2b8e-0000-4000-8000-000000000001';

function draftNow(overrides: Partial<Extract<SubjectNow, { kind: 'draft' }>> = {}): SubjectNow {
  return {
    kind: 'draft',
    status: 'awaiting_review',
    action: 'send_email',
    args: { to: 'ada@example.com', subject: 'Quick question', body: 'Hello Ada,\nhow are you?' },
    leadName: 'Ada Lovelace',
    campaignName: 'Q3 founders',
    expiresAt: new Date('2026-11-25T09:00:00.000Z'),
    ownerEmail: 'owner@example.com',
    ...overrides,
  };
}

function item(overrides: Partial<MailItem> = {}): MailItem {
  return {
    seq: 1,
    event: 'draft.awaiting_review',
    subject: { kind: 'draft', id: DRAFT_ID },
    facts: {},
    at: NOW,
    toAdmins: false,
    now: draftNow(),
    ...overrides,
  };
}

describe(notificationMail.name, () => {
  it('words a held draft from the draft as it stands: action, lead, campaign, recipient, subject and body, and links to its review', () => {
    const mail = notificationMail([item()], BASE, NOW);
    expect(mail.subject).toBe('A draft waits for your review: an email to Ada Lovelace');
    expect(mail.text).toBe(
      [
        'A draft waits for your review: an email to Ada Lovelace',
        'Campaign: Q3 founders.',
        'Decide it before 2026-11-25 09:00 UTC. Undecided by then, it expires.',
        'To: ada@example.com',
        'Subject: Quick question',
        '> Hello Ada,',
        '> how are you?',
        `Review it in the console: ${BASE}/#review?draft=${DRAFT_ID}`,
        '',
        '--',
        'You get this mail because you have an account on this Bridle. Choose which notifications reach you by email in your settings:',
        `${BASE}/#settings`,
        '',
      ].join('\n'),
    );
    expect(mail.html).toContain(`<a href="${BASE}/#review?draft=${DRAFT_ID}">Review it in the console</a>`);
  });

  it('says what became of a draft decided since it was held', () => {
    const approved = notificationMail(
      [item({ now: draftNow({ status: 'approved', args: { to: 'a@b.c', subject: 'S', body: 'Edited' } }) })],
      BASE,
      NOW,
    );
    expect(approved.text).toContain('It has been approved since.');
    expect(approved.text).toContain('> Edited');
    expect(approved.text).not.toContain('Decide it before');
  });

  it.each([
    ['redraft', false],
    ['task_cancelled', false],
    ['task_cancelled', true],
  ])('words an expired draft as expired, never as refused (next: %s, escalated: %s)', (next, escalated) => {
    const expired = item({ event: 'draft.expired', facts: { next, escalated }, now: draftNow({ status: 'expired' }) });
    const held = item({ seq: 0, now: draftNow({ status: 'expired' }) });
    for (const mail of [notificationMail([expired], BASE, NOW), notificationMail([held, expired], BASE, NOW)]) {
      expect(mail.text).toMatch(/expired/);
      for (const words of [mail.subject, mail.text, mail.html]) expect(words).not.toMatch(/reject|refus|denied|declin|turned down/i);
    }
    expect(notificationMail([expired], BASE, NOW).subject).toBe('A draft expired: an email to Ada Lovelace');
  });

  it('escapes everything it puts in the HTML, and keeps names on one line in the subject', () => {
    const hostile = draftNow({
      leadName: 'Eve <img src=x onerror=alert(1)>\r\nBcc: all@example.com',
      campaignName: '"Q3" & <b>friends</b>',
      args: { to: 'eve@example.com', subject: "It's <urgent>", body: '<script>alert("hi")</script>' },
    });
    const mail = notificationMail([item({ now: hostile })], BASE, NOW);
    expect(mail.subject).toBe('A draft waits for your review: an email to Eve <img src=x onerror=alert(1)> Bcc: all@example.com');
    expect(mail.html).not.toMatch(/<img|<script|<b>|onerror=alert\(1\)>/);
    expect(mail.html).toContain('&#60;script&#62;alert(&#34;hi&#34;)&#60;/script&#62;');
    expect(mail.html).toContain('&#34;Q3&#34; &#38; &#60;b&#62;friends&#60;/b&#62;');
    expect(mail.text).toContain('> <script>alert("hi")</script>');
  });

  it('makes several items one digest, each with its own link, and shows an item the person got twice (owner and admin) once', () => {
    const escalatedToAdmins = item({ seq: 2, event: 'draft.escalated', toAdmins: true, now: draftNow() });
    const escalatedToOwner = item({ seq: 3, event: 'draft.escalated', toAdmins: false, now: draftNow() });
    const question = item({
      seq: 4,
      event: 'confirmation.waiting',
      subject: { kind: 'confirmation', id: 'q-1', conversationId: 'c-1' },
      now: { kind: 'confirmation', question: "Delete 'Buy milk'?", expiresAt: new Date(NOW.getTime() + 600_000), resolution: null },
    });
    const mail = notificationMail([item(), escalatedToAdmins, escalatedToOwner, question], BASE, NOW);
    expect(mail.subject).toBe('Bridle: 3 notifications');
    expect(mail.text.split('\n').filter((line) => /^\d\. /.test(line))).toEqual([
      '1. A draft waits for your review: an email to Ada Lovelace',
      '2. Your draft went to the admins: an email to Ada Lovelace',
      '3. A question waits for you in the console',
    ]);
    expect(mail.text).toContain(`Answer it in the console: ${BASE}/#chat?conversation=c-1&confirmation=q-1`);
    expect(mail.html).toContain(`href="${BASE}/#chat?conversation=c-1&#38;confirmation=q-1"`);
  });

  it('names a subject deleted since as gone', () => {
    const mail = notificationMail([item({ now: { kind: 'gone' } })], BASE, NOW);
    expect(mail.subject).toBe('A draft waited for your review');
    expect(mail.text).toContain('It has been deleted since.');
  });

  it('says which webhook was turned off and why, and links to its delivery log', () => {
    const webhook = (reason: string) =>
      notificationMail(
        [
          item({
            event: 'webhook.disabled',
            subject: { kind: 'webhook', id: DRAFT_ID },
            facts: { reason, host: 'hooks.example.com' },
            now: { kind: 'webhook' },
          }),
        ],
        BASE,
        NOW,
      );
    expect(webhook('failing').text).toContain('hooks.example.com did not take a message for 24 hours');
    expect(webhook('gone').text).toContain('hooks.example.com answered 410 Gone');
    expect(webhook('gone').text).toContain(`${BASE}/#settings?webhook=${DRAFT_ID}`);
  });
});

describe('NOTIFICATION_SUBJECT', () => {
  it('reads back every kind of subject a notification is written with', () => {
    const written: Record<NotificationSubject['kind'], NotificationSubject> = {
      draft: { kind: 'draft', id: DRAFT_ID },
      confirmation: { kind: 'confirmation', id: DRAFT_ID, conversationId: DRAFT_ID },
      campaign: { kind: 'campaign', id: DRAFT_ID },
      policy: { kind: 'policy', version: 3 },
      budget: { kind: 'budget', month: '2026-12' },
      webhook: { kind: 'webhook', id: DRAFT_ID },
    };
    for (const subject of Object.values(written)) expect(NOTIFICATION_SUBJECT.parse(JSON.parse(JSON.stringify(subject)))).toEqual(subject);
  });
});

describe(retryDelayMs.name, () => {
  it('waits 30 s after the first failure, doubling, at most an hour', () => {
    expect([1, 2, 3, 4, 8, 50].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
  });
});
