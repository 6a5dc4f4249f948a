import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, openConsole, shown } from '../support/browser';

describe('web console campaigns in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;
  let tmp: string;

  const checkpoint = (name: string) => session.checkpoint(name);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'bridle-leads-'));
    session = await openConsole('campaigns-');
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('creates a campaign, imports 5 leads from a CSV file and runs cycles until it completes', async () => {
    const email = uniqueEmail();
    const password = 'correct horse battery';
    const csv = join(tmp, 'leads.csv');
    writeFileSync(
      csv,
      'name,linkedinUrl,email\n' +
        Array.from({ length: 5 }, (_, i) => `Lead ${i + 1},https://www.linkedin.com/in/cto-lead-${i + 1}/,cto${i + 1}@example.com`).join('\n') +
        '\n',
    );

    await page.goto(origin);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await shown(page.getByText('Account created'));
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByRole('link', { name: 'Campaigns' }));

    await page.getByRole('link', { name: 'Campaigns' }).click();
    await shown(page.getByText('No campaigns yet.'));
    expect(await page.getByRole('link', { name: 'Campaigns' }).getAttribute('aria-current')).toBe('page');
    await checkpoint('empty');

    await page.getByLabel('Campaign name').fill('CTO Outreach Q1');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await shown(page.getByRole('heading', { name: 'CTO Outreach Q1' }));
    await shown(page.getByRole('button', { name: /CTO Outreach Q1/ }));
    expect(await page.locator('[data-status]').textContent()).toBe('draft');
    expect(await page.locator('meter').count()).toBe(3);
    await checkpoint('created');

    await page.getByLabel(/Leads CSV file/).setInputFiles(csv);
    await page.getByRole('button', { name: 'Import leads' }).click();
    await shown(page.getByText('5 imported, 0 duplicates, 0 errors.'));
    await shown(page.getByRole('heading', { name: 'Lead 5' }));
    expect(await page.locator('.timeline .step').count()).toBe(15);
    await checkpoint('leads-imported');

    await page.getByRole('button', { name: 'Start' }).click();
    await shown(page.locator('[data-status="active"]'));
    await shown(page.getByRole('button', { name: 'Pause' }));
    await checkpoint('started');

    const statuses: string[] = [];
    for (let click = 0; click < 20; click++) {
      await page.getByRole('button', { name: 'Run one cycle' }).click();
      // The page disables its buttons while the cycle runs, then shows the outcome and the refreshed campaign.
      // (A string, evaluated in the page: the test project has no DOM types.)
      await page.waitForFunction(
        `document.querySelector('.outcome') !== null &&
          document.querySelector('.campaign-detail[aria-busy]') === null &&
          (document.querySelector('[data-status="completed"]') !== null ||
            [...document.querySelectorAll('.campaign-detail .actions button')].some((b) => !b.disabled))`,
        undefined,
        { timeout: 15_000 },
      );
      const status = (await page.locator('.outcome dd').first().textContent()) ?? '';
      statuses.push(status);
      expect(await page.getByRole('alert').count()).toBe(0);
      if (status.startsWith('campaign_completed')) break;
      if (click === 0) await checkpoint('first-cycle');
    }
    expect(statuses.at(-1)).toBe('campaign_completed');
    expect(statuses).toHaveLength(16);

    await shown(page.locator('[data-status="completed"]'));
    expect(await page.locator('.outcome').textContent()).toContain('complete_campaign');
    expect(await page.locator('.timeline .step.Completed').count()).toBe(15);
    expect(await page.getByRole('button', { name: 'Run one cycle' }).isDisabled()).toBe(true);
    expect(await page.getByText('Emails: 5 / 50').count()).toBe(1);
    await checkpoint('completed');

    const foreign = session.requested.filter((url) => new URL(url).origin !== origin);
    expect(foreign).toEqual([]);
    expect(session.requested.length).toBeGreaterThan(0);
  }, 120_000);
});
