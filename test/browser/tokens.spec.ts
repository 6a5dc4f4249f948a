import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, openConsole, shown, eventually } from '../support/browser';

// Settings → Access tokens: a token made in the console works at once for what its scopes
// allow, its secret is shown once and kept nowhere, and Revoke ends it at its next request.
describe('web console access tokens in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    session = await openConsole('tokens-');
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('makes a token, shows its secret once, and revokes it', async () => {
    await session.signUp(uniqueEmail(), 'correct horse battery');
    const { userId } = await session.stored();
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.locator('section, .card').filter({ has: page.getByRole('heading', { name: 'Access tokens' }) });
    await shown(page.getByText('No access token yet.'));
    await session.checkpoint('no-tokens');

    await page.getByRole('button', { name: 'New token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New access token' });
    await shown(dialog);
    await dialog.getByLabel('Name').fill('Backup script');
    await eventually(() => dialog.getByLabel(/See your tasks/).isChecked()).toBe(true);
    await session.checkpoint('new-token');
    await dialog.getByRole('button', { name: 'Make token' }).click();

    const shownSecret = page.getByRole('dialog', { name: 'Your new token' }).getByLabel('Token');
    await shown(shownSecret);
    const secret = await eventually(() => shownSecret.inputValue()).toMatch(/^bridle_pat_/);
    await session.checkpoint('secret-shown');

    const asToken = { authorization: `Bearer ${secret}` };
    expect((await page.request.get(`${origin}/api/${userId}/tasks`, { headers: asToken })).status()).toBe(200);
    expect((await page.request.post(`${origin}/api/${userId}/tasks`, { headers: asToken, data: { title: 'Nope' } })).status()).toBe(403);

    await page.getByRole('button', { name: 'Done' }).click();
    await shown(card.getByRole('cell', { name: 'Name Backup script' }));
    // A string, as the other browser tests write page code: the tests are type-checked without the DOM's types.
    await eventually(() =>
      page.evaluate<string>('document.documentElement.outerHTML + JSON.stringify({ ...localStorage }) + location.href'),
    ).not.toContain(secret);
    await session.checkpoint('token-listed');

    await page.getByRole('button', { name: 'Revoke Backup script' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await shown(card.getByText('revoked'));
    expect((await page.request.get(`${origin}/api/${userId}/tasks`, { headers: asToken })).status()).toBe(401);
    // Four checkpoints of four views each, with axe on every view: as long as the other suites' multi-checkpoint tests.
  }, 180_000);
});
