import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { INestApplicationContext } from '@nestjs/common';
import { type Locator, type Page, chromium } from 'playwright-core';
import createDatabaseTemplate from './database-template';
import { startTestApp } from './test-app';
import { createTestDatabase, testDataRoot } from './test-database';

const ROOT = join(__dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The widths every checkpoint is seen at: the narrowest phone the console supports, and a laptop. */
export const WIDTHS = [375, 1280] as const;
const HEIGHTS: Record<(typeof WIDTHS)[number], number> = { 375: 812, 1280: 800 };

/**
 * Jest's globalSetup of the browser project: checks Chromium, builds the console from web/
 * every run (about a second) so the suites never test a stale build, and makes the run's
 * database template.
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

/** Jest's matchers on a value read again until they pass; each resolves to the value that passed. */
type Polled<T> = {
  [K in keyof jest.Matchers<void, T>]: jest.Matchers<void, T>[K] extends (...args: infer A) => unknown ? (...args: A) => Promise<T> : never;
};

/**
 * The web-first assertion playwright-core lacks (as Playwright's `expect.poll`):
 * `await eventually(() => editor().inputValue()).toBe(text)` reads the page again every 50 ms
 * until the Jest matcher passes, and fails with the matcher's own message after 15 s. The page
 * answers an action (a click, a fill, setInputFiles, goto) in its own time, so a read made at
 * once may see the page before it: every read of the page in a browser test goes through this
 * (lint refuses `await locator.textContent()` and the like elsewhere in test/browser; docs/testing.md).
 * Resolves to the value that passed, for a test that goes on with it.
 */
export function eventually<T>(read: () => Promise<T>, timeoutMs = 15_000): Polled<T> & { not: Polled<T> } {
  const matchers = (negated: boolean): Polled<T> & { not: Polled<T> } =>
    new Proxy({} as Polled<T> & { not: Polled<T> }, {
      get: (_, name) =>
        name === 'then'
          ? undefined
          : name === 'not' && !negated
            ? matchers(true)
            : async (...args: unknown[]): Promise<T> => {
                const deadline = Date.now() + timeoutMs;
                for (;;) {
                  try {
                    const value = await read();
                    const check = (negated ? expect(value).not : expect(value)) as unknown as Record<
                      string | symbol,
                      (...a: unknown[]) => void
                    >;
                    check[name](...args);
                    return value;
                  } catch (error) {
                    // A read that failed (the page between two documents) or a matcher that did not pass yet.
                    if (Date.now() > deadline) throw error;
                  }
                  await new Promise((resolve) => setTimeout(resolve, 50));
                }
              },
    });
  return matchers(false);
}

/**
 * Waits until `expression`, evaluated in the page, is true. Not page.waitForFunction: that
 * compiles the expression with eval inside the page, which the console's CSP refuses.
 */
export async function pageUntil(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await evaluateAcrossNavigation(page, expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting in the page for: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The expression's value, or false while the page is between two documents: a wait for a
 * navigation (the consent page sending the browser back to the client) polls through it.
 */
async function evaluateAcrossNavigation(page: Page, expression: string): Promise<unknown> {
  try {
    return await page.evaluate(expression);
  } catch (error) {
    if (error instanceof Error && /Execution context was destroyed|navigat/i.test(error.message)) return false;
    throw error;
  }
}

// Evaluated in the page (the test project has no DOM types): the ids or names of controls nobody labelled.
const UNLABELLED_CONTROLS = `[...document.querySelectorAll('input:not([type=hidden]):not([hidden]), select, textarea')]
  .filter((control) => control.labels.length === 0 && !control.getAttribute('aria-label'))
  .map((control) => control.id || control.name || control.outerHTML)`;

/** What axe-core finds on the page as it is now (every rule it runs by default), one line per node. */
export async function axeViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} (${node.failureSummary})`),
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The real app on a socket and a Chromium page on it, recording every request it makes. */
export interface ConsoleSession {
  readonly page: Page;
  /** The running app, for what the operator does on the server (e.g. test/support/admins.ts). */
  readonly app: INestApplicationContext;
  readonly origin: string;
  /** Chromium's DevTools port, for Lighthouse: it opens its tab in the same profile (same signed-in storage). */
  readonly debuggingPort: number;
  readonly requested: readonly string[];
  /**
   * Looks at the page as it is at 375 px and 1280 px, in light and dark: a full-page
   * screenshot of each (`<prefix>NN-<name>-<width>-<scheme>.png`), and on each no error
   * (role=alert) showing, nothing the policy refused, nothing wider than the screen, every
   * control labelled, and no axe-core violation. Leaves the page at 375 px, light.
   */
  checkpoint(name: string, options?: { alertsExpected?: boolean }): Promise<void>;
  /** Creates the account through the console's own form; resolves once the chat shows. */
  signUp(email: string, password: string): Promise<void>;
  /** The requests that went anywhere but the app itself (the console must load with no network). */
  foreignRequests(): string[];
  /** What the Content-Security-Policy refused so far, as Chromium reported it. */
  refusedByPolicy(): string[];
  /** The signed-in person's token and id, as the console keeps them. */
  stored(): Promise<{ token: string; userId: string }>;
  close(): Promise<void>;
}

/** `env` reaches the app's config, e.g. SIGN_UP; `overrides` replace providers, e.g. a scripted language model. */
export async function openConsole(
  screenshotPrefix = '',
  env: Record<string, string> = {},
  overrides: Parameters<typeof startTestApp>[2] = {},
): Promise<ConsoleSession> {
  const db = await createTestDatabase();
  const sut = await startTestApp(db, env, overrides);
  const { port } = new URL(sut.http);
  const debuggingPort = await freePort();
  // A persistent profile (not an incognito context), so that Lighthouse's tab shares its storage.
  const profile = mkdtempSync(join(testDataRoot(), 'bridle-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      `--remote-debugging-port=${debuggingPort}`,
      // This machine has no network: Chromium's own background connections only fail.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 375, height: HEIGHTS[375] },
  });
  const page = context.pages()[0] ?? (await context.newPage());
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
    debuggingPort,
    requested,
    async checkpoint(name, options = {}) {
      step += 1;
      try {
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const width of WIDTHS) {
            await page.setViewportSize({ width, height: HEIGHTS[width] });
            const file = `${screenshotPrefix}${String(step).padStart(2, '0')}-${name}-${width}-${scheme}.png`;
            // Transitions (a button's colour when the scheme changes) are finished first, not caught halfway.
            await page.screenshot({ path: join(SCREENSHOTS, file), fullPage: true, animations: 'disabled' });
            const seen = { file, alerts: options.alertsExpected ? 0 : await page.getByRole('alert').count() };
            expect(seen).toEqual({ file, alerts: 0 });
            expect(refused).toEqual([]);
            // Readable on the screen: nothing wider than it (a wide table scrolls inside its own box).
            // (Read again until it holds: the page may lay itself out again after the resize.)
            await eventually(() =>
              page.evaluate<number>('document.documentElement.scrollWidth').then((seen) => ({ file, width: seen })),
            ).toEqual({
              file,
              width,
            });
            // Every form control has a label a screen reader reads out.
            await eventually(() => page.evaluate(UNLABELLED_CONTROLS)).toEqual([]);
            expect({ file, axe: await axeViolations(page) }).toEqual({ file, axe: [] });
          }
        }
      } finally {
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 375, height: HEIGHTS[375] });
      }
    },
    async signUp(email, password) {
      await page.goto(origin);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await shown(page.getByRole('navigation', { name: 'Main' }));
    },
    foreignRequests: () => requested.filter((url) => new URL(url).origin !== origin),
    refusedByPolicy: () => [...refused],
    async stored() {
      const session = await eventually(() => page.evaluate<string | null>(`localStorage.getItem('bridle.session')`)).not.toBeNull();
      return JSON.parse(session!) as { token: string; userId: string };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      await sut.close();
      await db.dispose();
    },
  };
}
