import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { CHROMIUM, SCREENSHOTS, shown, gone } from '../support/browser';

describe('web console in Chromium', () => {
  let db: TestDatabase;
  let sut: TestApp;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const requested: string[] = [];
  let step = 0;

  /** A full-page screenshot of the step; no error (role=alert) may be showing on it. */
  async function checkpoint(name: string): Promise<void> {
    step += 1;
    await page.screenshot({ path: join(SCREENSHOTS, `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
    expect(await page.getByRole('alert').count()).toBe(0);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db);
    await sut.app.listen(0, '127.0.0.1');
    const { port } = (sut.app.getHttpServer() as { address(): AddressInfo }).address();
    origin = `http://127.0.0.1:${port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    // 375 px: the narrowest phone the console must stay readable on.
    page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    page.on('request', (request) => requested.push(request.url()));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await sut?.close();
    await db?.dispose();
  });

  it('signs up, signs in, adds a task by chat and deletes it after confirming', async () => {
    const email = uniqueEmail();
    const password = 'correct horse battery';
    const tasks = page.getByRole('complementary', { name: 'Tasks' });
    const milk = tasks.getByRole('listitem').filter({ hasText: 'Buy milk' });

    await page.goto(origin);
    await shown(page.getByRole('heading', { name: 'Bridle console' }));
    await checkpoint('sign-in-page');

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await shown(page.getByText('Account created'));
    await checkpoint('signed-up');

    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(tasks.getByText('No tasks yet.'));
    await checkpoint('signed-in');

    await page.getByLabel('Message').fill('add buy milk');
    await page.getByLabel('Message').press('Enter');
    await shown(milk);
    expect(await milk.textContent()).toMatch(/^1\.\s*Buy milk/);
    expect(await page.locator('details.tool-card summary').filter({ hasText: 'add_task' }).textContent()).toMatch(/add_task · done · \d+ ms/);
    await checkpoint('task-added');

    await page.getByLabel('Message').fill('delete buy milk');
    await page.getByLabel('Message').press('Enter');
    const yes = page.getByRole('button', { name: 'Yes, delete' });
    await shown(yes);
    await shown(milk);
    await checkpoint('delete-asks-confirmation');

    await yes.click();
    await gone(milk);
    await shown(tasks.getByText('No tasks yet.'));
    await gone(yes);
    await checkpoint('task-deleted');

    const foreign = requested.filter((url) => new URL(url).origin !== origin);
    expect(foreign).toEqual([]);
    expect(requested.length).toBeGreaterThan(0);
  }, 120_000);
});
