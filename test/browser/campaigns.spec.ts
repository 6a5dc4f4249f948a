import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { addAdmin } from '../support/admins';
import { type ConsoleSession, gone, openConsole, pageUntil, shown } from '../support/browser';

// One app and one browser for the whole story: a person works a campaign, then an admin audits it.
describe('web console campaigns and audit in Chromium', () => {
  const password = 'correct horse battery';
  const adminEmail = uniqueEmail();
  let session: ConsoleSession;
  let page: Page;
  let origin: string;
  let tmp: string;
  let campaignOwnerId: string;

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
    const csv = join(tmp, 'leads.csv');
    writeFileSync(
      csv,
      'name,linkedinUrl,email\n' +
        Array.from({ length: 5 }, (_, i) => `Lead ${i + 1},https://www.linkedin.com/in/cto-lead-${i + 1}/,cto${i + 1}@example.com`).join(
          '\n',
        ) +
        '\n',
    );

    await session.signUp(uniqueEmail(), password);
    campaignOwnerId = String(await page.evaluate(`JSON.parse(sessionStorage.getItem('bridle.session')).userId`));

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
      await pageUntil(
        page,
        `document.querySelector('.outcome') !== null &&
          document.querySelector('.campaign-detail[aria-busy]') === null &&
          (document.querySelector('[data-status="completed"]') !== null ||
            [...document.querySelectorAll('.campaign-detail .actions button')].some((b) => !b.disabled))`,
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

    expect(session.foreignRequests()).toEqual([]);
    expect(session.requested.length).toBeGreaterThan(0);
  }, 120_000);

  it('shows a non-admin no audit page, not even by its address', async () => {
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Chat', 'Campaigns']);
    await page.goto(`${origin}/#audit`);
    await shown(page.getByRole('heading', { name: 'Chat' }));
    expect(await page.getByRole('heading', { name: 'Audit log' }).count()).toBe(0);
    expect(session.requested.filter((url) => new URL(url).pathname.startsWith('/admin/'))).toEqual([]);
    await checkpoint('non-admin-no-audit');
  }, 60_000);

  it("shows an admin the campaign's actions in the audit table, a decision with its tool calls, and a verified chain", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The operator made this account an admin on the server; it signs in through the form.
    await addAdmin(session.app, adminEmail, password);
    await page.getByLabel('Email').fill(adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByRole('navigation', { name: 'Main' }));
    await page.getByRole('link', { name: 'Audit' }).click();
    await shown(page.getByRole('heading', { name: 'Audit log' }));
    await shown(page.locator('.audit-table tbody tr').first());
    await checkpoint('audit');

    const rows = page.locator('.audit-table tbody tr');
    const column = (name: string) => rows.locator(`td[data-label="${name}"]`).allTextContents();
    const filter = async (fill: () => Promise<void>) => {
      await fill();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await pageUntil(page, `document.querySelector('.audit-table[aria-busy]') === null`);
    };

    // All of the owner's outreach rows: 15 actions (a pending row and an outcome row each) and complete_campaign.
    await filter(async () => {
      await page.getByLabel('Source', { exact: true }).selectOption('outreach');
      await page.getByLabel('Actor', { exact: true }).fill(campaignOwnerId);
    });
    await shown(page.getByRole('button', { name: 'Show older rows' }));
    expect(await rows.count()).toBe(25);
    await page.getByRole('button', { name: 'Show older rows' }).click();
    await page.getByRole('button', { name: 'Show older rows' }).waitFor({ state: 'hidden', timeout: 15_000 });
    expect(await rows.count()).toBe(31);
    expect(await page.locator('.summary').textContent()).toBe('31 rows.');
    const seqs = (await column('#')).map(Number);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(new Set(await column('Source'))).toEqual(new Set(['outreach']));
    expect(new Set(await column('Actor'))).toEqual(new Set([campaignOwnerId.slice(0, 8)]));
    const tools = await column('Tool');
    expect(tools.filter((tool) => tool === 'linkedin_scrape_profile')).toHaveLength(10);
    expect(tools.filter((tool) => tool === 'linkedin_send_message')).toHaveLength(10);
    expect(tools.filter((tool) => tool === 'send_email')).toHaveLength(10);
    expect(tools[0]).toBe('complete_campaign');

    await filter(async () => void (await page.getByLabel('Status', { exact: true }).selectOption('succeeded')));
    expect(await rows.count()).toBe(16);
    expect(new Set(await column('Status'))).toEqual(new Set(['succeeded']));
    await checkpoint('audit-outreach-succeeded');

    // A row's detail, then its decision: the cycle that sent the newest email, with its pending and outcome rows.
    const email = rows.filter({ hasText: 'send_email' }).first();
    await email.getByRole('button', { name: /send_email$/ }).click();
    await shown(page.getByRole('heading', { name: /^Row \d+: send_email$/ }));
    expect(await page.locator('.audit-detail').textContent()).toContain('@example.com');
    await page.getByRole('button', { name: 'Open its decision' }).click();
    await shown(page.getByRole('heading', { name: 'Decision: send_email' }));
    await shown(page.getByRole('heading', { name: 'Tool calls (2)' }));
    expect(await page.locator('.tool-calls summary').allTextContents()).toEqual([
      expect.stringMatching(/^send_email · #\d+ · pending/),
      expect.stringMatching(/^send_email · #\d+ · succeeded · \d+ ms$/),
    ]);
    await checkpoint('audit-decision');

    // Nothing after a future instant; a bad actor id is refused with the API's own words.
    await filter(() => page.getByLabel('From (your time)').fill('2999-01-01T00:00'));
    await shown(page.getByText('No audit rows match these filters.'));
    await filter(() => page.getByLabel('Actor', { exact: true }).fill('not-a-uuid'));
    await shown(page.getByRole('alert'));
    expect(await page.getByRole('alert').textContent()).toBe('actorId must be a UUID');
    await page.getByRole('button', { name: 'Clear' }).click();
    await gone(page.getByRole('alert'));
    expect(await page.getByLabel('Actor', { exact: true }).inputValue()).toBe('');
    expect(await rows.count()).toBe(25);

    // A slow answer for an earlier filter never replaces the answer for the later one.
    const slowChat = (url: URL) => url.pathname === '/admin/audit-logs' && url.searchParams.get('source') === 'chat';
    let released!: () => void;
    const slowAnswered = new Promise<void>((resolve) => (released = resolve));
    await page.route(slowChat, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.continue();
      released();
    });
    await page.getByLabel('Source', { exact: true }).selectOption('chat');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await filter(async () => void (await page.getByLabel('Source', { exact: true }).selectOption('outreach')));
    await slowAnswered;
    await page.waitForTimeout(100);
    expect(new Set(await column('Source'))).toEqual(new Set(['outreach']));
    await page.unroute(slowChat);

    await page.getByRole('button', { name: 'Verify integrity' }).click();
    await shown(page.locator('[data-verified="true"]'));
    expect(await page.locator('[data-verified]').textContent()).toMatch(
      /^Chain verified: \d+ rows checked, every link and hash holds\. Head hash [0-9a-f]{64}$/,
    );
    await checkpoint('audit-verified');

    expect(session.foreignRequests()).toEqual([]);
  }, 120_000);
});
