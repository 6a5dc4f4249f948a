import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Jest's globalSetup of the browser project: checks Chromium, and builds the console from
 * web/ every run (well under a second), so the suites never test a stale build.
 */
export default function prepareBrowserSuites(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with \`apt-get install chromium\` (or set CHROMIUM_PATH)`);
  }
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'web'], { cwd: ROOT, stdio: 'pipe' });
  mkdirSync(SCREENSHOTS, { recursive: true });
}

// playwright-core has no web-first assertions: wait for the state, then assert with Jest.
export const shown = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 15_000 });
export const gone = (locator: Locator) => locator.waitFor({ state: 'detached', timeout: 15_000 });
