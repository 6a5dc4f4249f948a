import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { type Locator, type Page, chromium } from 'playwright-core';
import createDatabaseTemplate from './database-template';
import { startTestApp } from './test-app';
import { createTestDatabase } from './test-database';

const ROOT = join(__dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Jest's globalSetup of the browser project: checks Chromium, builds the console from web/
 * every run (well under a second) so the suites never test a stale build, and makes the
 * run's database template.
 */
export default async function prepareBrowserSuites(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with \`apt-get install chromium\` (or set CHROMIUM_PATH)`);
  }
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'web'], { cwd: ROOT, stdio: 'pipe' });
  mkdirSync(SCREENSHOTS, { recursive: true });
  await createDatabaseTemplate();
}

// playwright-core has no web-first assertions: wait for the state, then assert with Jest.
export const shown = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 15_000 });
export const gone = (locator: Locator) => locator.waitFor({ state: 'detached', timeout: 15_000 });

/**
 * Waits until `expression`, evaluated in the page, is true. Not page.waitForFunction: that
 * compiles the expression with eval inside the page, which the console's CSP refuses.
 */
export async function pageUntil(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting in the page for: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Evaluated in the page (the test project has no DOM types): the ids or names of controls nobody labelled.
const UNLABELLED_CONTROLS = `[...document.querySelectorAll('input, select, textarea')]
  .filter((control) => control.labels.length === 0 && !control.getAttribute('aria-label'))
  .map((control) => control.id || control.name || control.outerHTML)`;

/** The real app on a socket and a Chromium page on it, recording every request it makes. */
export interface ConsoleSession {
  readonly page: Page;
  /** The running app, for what the operator does on the server (e.g. test/support/admins.ts). */
  readonly app: INestApplicationContext;
  readonly origin: string;
  readonly requested: readonly string[];
  /** A full-page screenshot `<prefix>NN-<name>.png`; no error (role=alert) may be showing on it. */
  checkpoint(name: string): Promise<void>;
  /** Creates the account and signs in through the console's own form; resolves once the console shows. */
  signUp(email: string, password: string): Promise<void>;
  /** The requests that went anywhere but the app itself (the console must load with no network). */
  foreignRequests(): string[];
  /** What the Content-Security-Policy refused so far, as Chromium reported it. */
  refusedByPolicy(): string[];
  close(): Promise<void>;
}

/** `env` reaches the app's config, e.g. SIGN_UP. */
export async function openConsole(screenshotPrefix = '', env: Record<string, string> = {}): Promise<ConsoleSession> {
  const db = await createTestDatabase();
  const sut = await startTestApp(db, env);
  const { port } = new URL(sut.http);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  // 375 px: the narrowest phone the console must stay readable on.
  const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  // Whatever the Content-Security-Policy refused: the console must need nothing it forbids.
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  let step = 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    page,
    app: sut.app,
    origin,
    requested,
    async checkpoint(name) {
      step += 1;
      await page.screenshot({ path: join(SCREENSHOTS, `${screenshotPrefix}${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(refused).toEqual([]);
      // Readable at 375 px: nothing wider than the screen (a wide table scrolls inside its own box).
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      // Every form control has a label a screen reader reads out.
      expect(await page.evaluate(UNLABELLED_CONTROLS)).toEqual([]);
    },
    async signUp(email, password) {
      await page.goto(origin);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await shown(page.getByText('Account created'));
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await shown(page.getByRole('navigation', { name: 'Main' }));
    },
    foreignRequests: () => requested.filter((url) => new URL(url).origin !== origin),
    refusedByPolicy: () => [...refused],
    async close() {
      await browser.close();
      await sut.close();
      await db.dispose();
    },
  };
}
