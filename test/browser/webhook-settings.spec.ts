import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, eventually, gone, openConsole, shown } from '../support/browser';

// Settings → Webhooks: an endpoint added (its signing secret shown once), turned off, its log
// opened, and deleted; each change reads the list again.
describe('web console webhooks in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;

  beforeAll(async () => {
    session = await openConsole('webhooks-');
    ({ page } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('adds an endpoint and shows its secret once, disables it, opens its empty log and deletes it', async () => {
    const address = 'https://hooks.example.com/bridle';
    await session.signUp(uniqueEmail(), 'correct horse battery');
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.getByRole('region', { name: 'Webhooks', exact: true });
    await shown(card.getByText('No webhook yet.'));

    await card.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('dialog', { name: 'New webhook' });
    await form.getByLabel('Address').fill(address);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const made = page.getByRole('dialog', { name: 'Your new webhook' });
    const secret = await eventually(() => made.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
    await made.getByRole('button', { name: 'Done' }).click();
    await gone(made);
    const row = card.getByRole('row').filter({ hasText: address });
    await eventually(() => row.getByText('enabled', { exact: true }).count()).toBe(1);
    // Shown once: nothing on the page holds it any more.
    expect(await page.content()).not.toContain(secret);
    await session.checkpoint('webhook-added');

    await row.getByRole('button', { name: `Disable ${address}` }).click();
    await shown(row.getByText('disabled: turned off'));
    await shown(row.getByRole('button', { name: `Enable ${address}` }));

    await row.getByRole('button', { name: 'Log' }).click();
    const log = page.getByRole('dialog', { name: 'Delivery log' });
    await shown(log.getByText('Nothing delivered yet.'));
    await log.getByRole('button', { name: 'Close' }).click();
    await gone(log);

    await row.getByRole('button', { name: `Delete ${address}` }).click();
    await page.getByRole('alertdialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete' }).click();
    await shown(card.getByText('No webhook yet.'));
  }, 180_000);
});
