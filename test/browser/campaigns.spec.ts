import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { addAdmin } from '../support/admins';
import { type ConsoleSession, gone, openConsole, pageUntil, shown, eventually } from '../support/browser';

// One app and one browser for the whole story: a person works a campaign, then an admin audits it.
describe('web console campaigns and audit in Chromium', () => {
  const password = 'correct horse battery';
  const ownerEmail = uniqueEmail();
  const adminEmail = uniqueEmail();
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

  it('creates a campaign, imports 5 leads from a CSV file and runs cycles until it completes, showing what was sent', async () => {
    const csv = join(tmp, 'leads.csv');
    writeFileSync(
      csv,
      'name,linkedinUrl,email\n' +
        Array.from({ length: 5 }, (_, i) => `Lead ${i + 1},https://www.linkedin.com/in/cto-lead-${i + 1}/,cto${i + 1}@example.com`).join(
          '\n',
        ) +
        '\n',
    );

    await session.signUp(ownerEmail, password);

    await page.getByRole('link', { name: 'Campaigns' }).click();
    await shown(page.getByText('No campaigns yet.'));
    await eventually(() => page.getByRole('link', { name: 'Campaigns' }).getAttribute('aria-current')).toBe('page');
    await eventually(() => page.title()).toBe('Campaigns · Bridle');
    await checkpoint('empty');

    await page.getByLabel('Campaign name').fill('CTO Outreach Q1');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await shown(page.getByRole('heading', { name: 'CTO Outreach Q1' }));
    await shown(page.getByRole('button', { name: /CTO Outreach Q1/ }));
    await eventually(() => page.locator('.campaign-status').getAttribute('data-status')).toBe('draft');
    await eventually(() => page.locator('.campaign-detail header .badge').textContent()).toBe('Draft');
    await eventually(() => page.locator('meter').count()).toBe(3);
    await checkpoint('created');

    await page.getByLabel(/Leads CSV file/).setInputFiles(csv);
    await page.getByRole('button', { name: 'Import leads' }).click();
    await shown(page.getByText('5 imported, 0 duplicates, 0 errors.'));
    await shown(page.getByRole('heading', { name: 'Lead 5' }));
    await eventually(() => page.locator('.timeline .step').count()).toBe(15);
    // Human names and status pills, never the API's type names.
    await eventually(() =>
      page
        .locator('.timeline .step-kind')
        .allTextContents()
        .then((kinds) => new Set(kinds)),
    ).toEqual(new Set(['Look up profile', 'LinkedIn message', 'Email']));
    await eventually(() =>
      page
        .locator('.timeline .step .badge')
        .allTextContents()
        .then((badges) => new Set(badges)),
    ).toEqual(new Set(['To do']));
    await eventually(() => page.locator('.campaign-detail').textContent()).not.toMatch(/SendLinkedInMessage|ScrapeProfile|Pending/);
    await checkpoint('leads-imported');

    await page.getByRole('button', { name: 'Start' }).click();
    await shown(page.locator('.campaign-status[data-status="active"]'));
    await shown(page.getByRole('button', { name: 'Pause' }));
    // The test app runs no worker: the page says cycles wait for the button.
    await shown(page.getByText('No outreach worker is running: this campaign moves only when you press “Run one cycle”.'));

    const statuses: string[] = [];
    for (let click = 1; click <= 20; click++) {
      await page.getByRole('button', { name: 'Run one cycle' }).click();
      // The outcome of this click, then the campaign reloaded with its buttons free again.
      await pageUntil(
        page,
        `document.querySelector('.outcome[data-cycle="${click}"]') !== null &&
          document.querySelector('.campaign-detail [aria-busy]') === null`,
      );
      // The outcome of this click is shown (waited for above): read its status once.
      const status = (await eventually(() => page.locator(`.outcome[data-cycle="${click}"]`).getAttribute('data-outcome')).toBeTruthy())!;
      statuses.push(status);
      await eventually(() => page.getByRole('alert').count()).toBe(0);
      if (status === 'campaign_completed') break;
      if (click === 4) await checkpoint('first-message-sent');
    }
    expect(statuses.at(-1)).toBe('campaign_completed');
    expect(statuses).toHaveLength(16);

    await shown(page.locator('.campaign-status[data-status="completed"]'));
    await eventually(() => page.locator('.campaign-detail header .badge').textContent()).toBe('Completed');
    await eventually(() => page.locator('.timeline .step.step-Completed').count()).toBe(15);
    await eventually(() => page.getByRole('button', { name: 'Run one cycle' }).isDisabled()).toBe(true);
    await eventually(() => page.getByText('Emails: 5 / 50').count()).toBe(1);
    // What went out, on each message task: 5 LinkedIn messages and 5 emails, each to its lead.
    const sent = page.locator('.timeline .sent');
    await eventually(() => sent.count()).toBe(10);
    const lead1 = page.locator('.timeline .lead').filter({ hasText: 'Lead 1' });
    await eventually(() => lead1.locator('.sent').first().textContent()).toContain('To https://www.linkedin.com/in/cto-lead-1/');
    await eventually(() => lead1.locator('.sent').last().textContent()).toContain('To cto1@example.com');
    await eventually(() => page.locator('.timeline .sent-text').allTextContents()).toEqual(
      Array.from({ length: 10 }, () => expect.stringMatching(/^.{11,}/s)),
    );
    // Each sent message says how it was verified: the channel holds it under its id.
    await eventually(() => page.locator('.timeline .step-verified').count()).toBe(10);
    await eventually(() => page.locator('.timeline .step-verified').first().textContent()).toMatch(
      /^Verified: the channel holds it as \S+/,
    );
    await checkpoint('completed');

    expect(session.foreignRequests()).toEqual([]);
  }, 180_000);

  it('shows a non-admin no admin page (audit, policy), not even by its address', async () => {
    await eventually(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual([
      'Chat',
      'Campaigns',
      'Review',
      'Settings',
    ]);
    for (const [hash, heading] of [
      ['audit', 'Audit log'],
      ['policy', 'Policy'],
    ]) {
      await page.goto(`${origin}/#${hash}`);
      await shown(page.getByRole('heading', { name: 'Chat' }));
      await eventually(() => page.getByRole('heading', { name: heading, exact: true }).count()).toBe(0);
    }
    expect(session.requested.filter((url) => new URL(url).pathname.startsWith('/admin/'))).toEqual([]);
  }, 60_000);

  it("shows an admin the campaign's actions with people's emails, a row and a decision in a side panel, and the chain's state", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The operator made this account an admin on the server; it signs in through the form.
    await addAdmin(session.app, adminEmail, password);
    await page.getByLabel('Email').fill(adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByRole('navigation', { name: 'Main' }));
    await page.getByRole('link', { name: 'Audit' }).click();
    await shown(page.getByRole('heading', { name: 'Audit log' }));
    await eventually(() => page.title()).toBe('Audit log · Bridle');
    const rows = page.locator('.table tbody tr');
    await shown(rows.first());
    await shown(page.getByText('Chain not checked'));
    await checkpoint('audit');

    const column = (name: string) => rows.locator(`td[data-label="${name}"]`).allTextContents();
    /** The values a column shows, each once. */
    const columnValues = (name: string) => column(name).then((values) => new Set(values));
    const filter = async (fill: () => Promise<void>) => {
      await fill();
      const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/admin/audit-logs');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await answered;
      await pageUntil(page, `document.querySelector('.table[aria-busy]') === null`);
    };

    // All of the owner's outreach rows: 15 actions (a pending row and an outcome row each) and complete_campaign.
    await filter(async () => {
      await page.getByLabel('Source', { exact: true }).selectOption('outreach');
      await page.getByLabel('Actor email').fill(ownerEmail.toUpperCase());
    });
    await shown(page.getByRole('button', { name: 'Show older rows' }));
    await eventually(() => rows.count()).toBe(25);
    await page.getByRole('button', { name: 'Show older rows' }).click();
    await page.getByRole('button', { name: 'Show older rows' }).waitFor({ state: 'hidden', timeout: 15_000 });
    await eventually(() => rows.count()).toBe(31);
    await eventually(() => page.locator('.summary').textContent()).toBe('31 rows.');
    const seqs = (await eventually(() => column('#')).toHaveLength(31)).map(Number);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    await eventually(() => columnValues('Source')).toEqual(new Set(['Outreach']));
    // The actor by email, the time in full (to the second).
    await eventually(() => columnValues('Actor')).toEqual(new Set([ownerEmail]));
    await eventually(() => column('Time')).toEqual(Array.from({ length: 31 }, () => expect.stringMatching(/\d{1,2}:\d{2}:\d{2}/)));
    const tools = await eventually(() => column('Tool')).toHaveLength(31);
    expect(tools.filter((tool) => tool === 'linkedin_scrape_profile')).toHaveLength(10);
    expect(tools.filter((tool) => tool === 'linkedin_send_message')).toHaveLength(10);
    expect(tools.filter((tool) => tool === 'send_email')).toHaveLength(10);
    expect(tools[0]).toBe('complete_campaign');

    await filter(async () => void (await page.getByLabel('Status', { exact: true }).selectOption('succeeded')));
    await eventually(() => rows.count()).toBe(16);
    await eventually(() => columnValues('Status')).toEqual(new Set(['Succeeded']));

    // A row's detail in the side panel, then its decision: the cycle that sent the newest email.
    const email = rows.filter({ hasText: 'send_email' }).first();
    await email.getByRole('button', { name: /send_email$/ }).click();
    const panel = page.getByRole('dialog');
    await shown(panel.getByRole('heading', { name: /^Row \d+: send_email$/ }));
    await eventually(() => panel.textContent()).toContain('@example.com');
    await eventually(() => panel.locator('pre').first().textContent()).toMatch(/^\{\n {2}"/);
    await checkpoint('audit-row');
    await panel.getByRole('button', { name: 'Open its decision' }).click();
    await shown(panel.getByRole('heading', { name: 'Decision: send_email' }));
    await shown(panel.getByRole('heading', { name: 'Tool calls (2)' }));
    await eventually(() => panel.locator('.tool-calls summary').allTextContents()).toEqual([
      expect.stringMatching(/^send_email · #\d+Pending$/),
      expect.stringMatching(/^send_email · #\d+ · \d+ msSucceeded$/),
    ]);
    await checkpoint('audit-decision');
    await panel.getByRole('button', { name: 'Close' }).click();
    await gone(panel.getByRole('heading', { name: 'Decision: send_email' }));

    // Nothing after a future instant; a bad tool name is refused with the API's own words.
    await filter(() => page.getByLabel('From (your time)').fill('2999-01-01T00:00'));
    await shown(page.getByText('No audit rows match these filters.'));
    await filter(() => page.getByLabel('Tool', { exact: true }).fill('drop table'));
    await shown(page.getByRole('alert'));
    await eventually(() => page.getByRole('alert').textContent()).toBe('tool must be a tool name (letters, digits, _ . : -)');
    await page.getByRole('button', { name: 'Clear' }).click();
    await gone(page.getByRole('alert'));
    await eventually(() => page.getByLabel('Actor email').inputValue()).toBe('');
    await pageUntil(page, `document.querySelectorAll('.table tbody tr').length === 25`);

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
    await eventually(() => columnValues('Source')).toEqual(new Set(['Outreach']));
    await page.unroute(slowChat);

    await page.getByRole('button', { name: 'Verify integrity' }).click();
    await shown(page.locator('[data-verified="true"]'));
    await eventually(() => page.locator('[data-verified]').textContent()).toMatch(/^Chain intact · \d+ rows$/);
    await checkpoint('audit-verified');

    expect(session.foreignRequests()).toEqual([]);
  }, 180_000);
});
