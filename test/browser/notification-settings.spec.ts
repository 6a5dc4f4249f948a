import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, eventually, openConsole, shown } from '../support/browser';

// Settings → Email notifications: a checkbox per event that can reach the person, each saved
// at once, on a server without SMTP (which the card says).
describe('web console email notifications in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    session = await openConsole('notifications-');
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('shows every event on, turns one off for good, and says that this server sends no email', async () => {
    await session.signUp(uniqueEmail(), 'correct horse battery');
    const { token, userId } = await session.stored();
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.locator('section, .card').filter({ has: page.getByRole('heading', { name: 'Email notifications' }) });
    await shown(card.getByText('This server sends no email'));
    const expired = card.getByRole('checkbox', { name: 'A draft expired: nobody decided it in time' });
    await eventually(() => expired.isChecked()).toBe(true);
    const preferences = async () =>
      (await (
        await page.request.get(`${origin}/api/${userId}/notifications/preferences`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        email: Record<string, boolean>;
      };
    // One checkbox per event the server says can reach this person.
    const events = Object.keys((await preferences()).email);
    expect(events).toContain('draft.expired');
    await eventually(() => card.getByRole('checkbox').count()).toBe(events.length);
    await session.checkpoint('email-notifications');

    await expired.uncheck();
    await eventually(async () => (await preferences()).email['draft.expired']).toBe(false);
    await page.reload();
    await eventually(() => card.getByRole('checkbox', { name: 'A draft expired: nobody decided it in time' }).isChecked()).toBe(false);
    await eventually(() => card.getByRole('checkbox', { name: 'A draft waits for my review' }).isChecked()).toBe(true);
  }, 180_000);
});
