import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { addAdmin } from '../support/admins';
import { type ConsoleSession, openConsole, shown, eventually } from '../support/browser';

/** A rule put before the built-in ones: the assistant may no longer add tasks. */
const NO_ADDS = '  - name: no-adds\n    tools: [add_task]\n    effect: deny\n    reason: Adds are paused this week\n';
/** The built-in policy's file as the editor shows it. */
const BUILT_IN = /^rules:\n {2}- name: destruction-needs-the-person\n/;

// One app and one browser: an admin reads the policy in force, tries a candidate on the recorded calls, is refused a broken one, stores one.
describe('web console policy page in Chromium', () => {
  const password = 'correct horse battery';
  const adminEmail = uniqueEmail();
  let session: ConsoleSession;
  let page: Page;
  let origin: string;
  let headers: Record<string, string>;
  let tmp: string;

  /** What the API says, with the admin's own session: the console's words are checked against it. */
  const api = async <T>(path: string): Promise<T> => {
    const res = await page.request.get(`${origin}${path}`, { headers });
    expect(res.status()).toBe(200);
    return (await res.json()) as T;
  };
  /** The audit log's rows but the reads of it (admin.audit_logs.list…), which reading it for this test adds. */
  const auditRows = async () =>
    (await api<{ items: { seq: number; tool: string }[] }>('/admin/audit-logs?limit=100')).items
      .filter((row) => !row.tool.startsWith('admin.'))
      .map((row) => `${row.seq} ${row.tool}`);
  const editor = () => page.getByLabel('Policy file (YAML or JSON)');

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'bridle-policy-'));
    session = await openConsole('policy-');
    ({ page, origin } = session);
    await addAdmin(session.app, adminEmail, password);
    await page.goto(origin);
    await page.getByLabel('Email').fill(adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByRole('navigation', { name: 'Main' }));
    const { token, userId } = await session.stored();
    headers = { authorization: `Bearer ${token}` };
    // Two recorded tool calls: adds, which the policy in force allows.
    for (const message of ['add buy milk', 'add call the bank']) {
      expect((await page.request.post(`${origin}/api/${userId}/chat`, { headers, data: { message } })).status()).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('shows the built-in policy in force and puts it in the editor', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policy' }).click();
    await shown(page.getByRole('heading', { name: 'Policy', level: 1 }));
    await eventually(() => page.title()).toBe('Policy · Bridle');
    await shown(page.getByRole('heading', { name: 'In force: version 0' }));
    await eventually(() => page.locator('.policy-in-force').textContent()).toMatch(/^The built-in policy/);
    await eventually(() => editor().inputValue()).toMatch(BUILT_IN);
    await shown(page.getByText('No admin has stored a policy yet'));
    await session.checkpoint('built-in');
  }, 60_000);

  it('dry-runs a candidate over the recorded calls and writes nothing', async () => {
    const rowsBefore = await auditRows();
    expect(rowsBefore.length).toBeGreaterThan(0);
    const builtIn = await eventually(() => editor().inputValue()).toMatch(BUILT_IN);
    await editor().fill(builtIn.replace(/^rules:\n/, `rules:\n${NO_ADDS}`));
    await page.getByRole('button', { name: 'Dry run' }).click();
    const report = page.locator('.dry-run-report');
    await shown(report);
    await eventually(() => report.getAttribute('data-changed')).toBe('2');
    await eventually(() => report.locator('.dry-run-summary').textContent()).toMatch(
      /^Of the newest 2 recorded calls \(.+ to .+\), 2 would be decided differently than by version 0\.$/,
    );
    const change = report.locator('.dry-run-change');
    await eventually(() => change.locator('summary').allTextContents()).toEqual(['Allowed → Denied by no-adds: 2 calls']);
    await change.locator('summary').click();
    const examples = change.locator('tbody tr');
    await eventually(() => examples.locator('td[data-label="Tool"]').allTextContents()).toEqual(['add_task', 'add_task']);
    await eventually(() => examples.locator('td[data-label="Actor"]').allTextContents()).toEqual([adminEmail, adminEmail]);
    await session.checkpoint('dry-run');

    expect((await api<{ version: number }>('/admin/policy')).version).toBe(0);
    expect(await auditRows()).toEqual(rowsBefore);
    // An edit makes the report stale: it goes.
    await editor().press('End');
    await editor().type(' ');
    await eventually(() => report.count()).toBe(0);
  }, 90_000);

  it('refuses a policy with problems, naming each rule, its field and why, and stores nothing', async () => {
    await editor().fill(
      'rules:\n  - name: wipe\n    tools: [delete_everything]\n    effect: allow\n  - name: Bad Name\n    tools: [add_task]\n    effect: deny\n',
    );
    await page.getByLabel(/^Why/).fill('Try a broken one');
    await page.getByRole('button', { name: 'Store as the next version' }).click();
    const problems = page.locator('.policy-problems');
    await shown(problems);
    await eventually(() => problems.locator('p').textContent()).toMatch(/^\d+ problems in this policy\. Nothing was stored\.$/);
    await eventually(() => problems.locator('li').allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Rule 1 \(wipe\), rules\[1\]\.tools\[0\]: .*delete_everything/),
        expect.stringMatching(/^Rule 2, rules\[2\]\.name: /),
      ]),
    );
    await session.checkpoint('refused', { alertsExpected: true });

    // Not YAML at all: said before anything is sent.
    await editor().fill('rules: [\n');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await eventually(() => problems.locator('p').textContent()).toMatch(
      /^The file is not valid YAML at line \d+, column \d+: .+ Nothing was tried\.$/,
    );
    expect((await api<{ version: number }>('/admin/policy')).version).toBe(0);
  }, 90_000);

  it('stores a version with its reason, in force at once, listed, downloadable as a file and opened back from one', async () => {
    await page.getByRole('button', { name: 'Edit a copy of the built-in policy' }).click();
    const copy = await eventually(() => editor().inputValue()).toMatch(BUILT_IN);
    await editor().fill(copy.replace(/^rules:\n/, `rules:\n${NO_ADDS}`));
    await page.getByLabel(/^Why/).fill('Pause adds for the audit week');
    await page.getByRole('button', { name: 'Store as the next version' }).click();
    await shown(page.getByRole('heading', { name: 'In force: version 1' }));
    await shown(page.getByText('Version 1 stored: in force on every server now.'));
    await eventually(() => page.locator('.policy-in-force').textContent()).toContain(
      `by ${adminEmail}: “Pause adds for the audit week”. 2 rules.`,
    );
    await eventually(() => page.getByLabel(/^Why/).inputValue()).toBe('');
    const inForce = await api<{ version: number; reason: string; rules: { name: string }[] }>('/admin/policy');
    expect(inForce).toMatchObject({ version: 1, reason: 'Pause adds for the audit week' });
    expect(inForce.rules.map((rule) => rule.name)).toEqual(['no-adds', 'destruction-needs-the-person']);
    const versions = page.locator('.table').last().locator('tbody tr');
    await eventually(() => versions.locator('td[data-label="Version"]').allTextContents()).toEqual(['1']);
    await eventually(() => versions.locator('td[data-label="Why"]').allTextContents()).toEqual(['Pause adds for the audit week']);
    await session.checkpoint('stored');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download version 1' }).click();
    const file = readFileSync(await (await download).path(), 'utf8');
    expect(file).toMatch(/^# Bridle policy version 1, stored .+ by .+: Pause adds for the audit week\n/);
    expect(file).toContain('name: no-adds');

    // A file from git, as JSON: opened into the editor (its reason too), then tried.
    const json = join(tmp, 'policy.json');
    writeFileSync(json, JSON.stringify({ rules: [], reason: 'Allow everything' }));
    await page.getByLabel('Open a policy file').setInputFiles(json);
    await eventually(() => editor().inputValue()).toBe(readFileSync(json, 'utf8'));
    await eventually(() => page.getByLabel(/^Why/).inputValue()).toBe('Allow everything');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await shown(page.locator('.dry-run-report'));
    // Against version 1: the two adds it denies would be allowed again.
    await eventually(() => page.locator('.dry-run-change summary').allTextContents()).toEqual([
      'Denied → Allowed (no rule matches): 2 calls',
    ]);
  }, 90_000);
});
