import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, openConsole, shown, gone } from '../support/browser';

describe('web console in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;

  const checkpoint = (name: string) => session.checkpoint(name);

  beforeAll(async () => {
    session = await openConsole('');
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  const email = uniqueEmail();
  const password = 'correct horse battery';

  it('signs up, signs in, adds a task by chat and deletes it after confirming', async () => {
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
    expect(await page.locator('details.tool-card summary').filter({ hasText: 'add_task' }).textContent()).toMatch(
      /add_task · done · \d+ ms/,
    );
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

    expect(session.foreignRequests()).toEqual([]);
  }, 120_000);

  it('is usable with the keyboard alone: sign out, sign back in, move between pages', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await shown(page.getByRole('heading', { name: 'Bridle console' }));
    const focused = () => page.evaluate('document.activeElement.id || document.activeElement.textContent');

    await page.keyboard.press('Tab');
    expect(await focused()).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await shown(page.getByRole('navigation', { name: 'Main' }));

    // From the top of the page: Chat, then Campaigns.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Campaigns');
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Campaigns' }));
    // The new page starts at its heading; the next stop is its first field, which Enter submits.
    expect(await focused()).toBe('campaigns-title');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('campaign-name');
    await page.keyboard.type('Keyboard campaign');
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Keyboard campaign' }));
    await checkpoint('keyboard-only');
    expect(session.requested.length).toBeGreaterThan(0);
  }, 120_000);

  it('lists the 20 most recent conversations, and older ones on request', async () => {
    const { token, userId } = JSON.parse(String(await page.evaluate(`sessionStorage.getItem('bridle.session')`))) as {
      token: string;
      userId: string;
    };
    for (let i = 1; i <= 21; i++) {
      const res = await page.request.post(`${origin}/api/${userId}/chat`, {
        headers: { authorization: `Bearer ${token}` },
        data: { message: `add errand ${i}` },
      });
      expect(res.status()).toBe(200);
    }
    await page.getByRole('link', { name: 'Chat' }).click();
    const conversations = page.getByRole('complementary', { name: 'Conversations' }).getByRole('listitem');
    const older = page.getByRole('button', { name: 'Show older conversations' });
    await shown(older);
    expect(await conversations.count()).toBe(20);
    expect(await conversations.first().textContent()).toMatch(/errand 21/i);
    await older.click();
    await older.waitFor({ state: 'hidden', timeout: 15_000 });
    // 21 errands, and the conversations of the first test.
    expect(await conversations.count()).toBeGreaterThan(21);
    await checkpoint('older-conversations');
  }, 60_000);

  it('takes a person whose token no longer holds back to sign-in, saying why', async () => {
    // What a token past JWT_EXPIRES_IN looks like to the console: the API answers 401.
    await page.evaluate(`(() => {
      const stored = JSON.parse(sessionStorage.getItem('bridle.session'));
      sessionStorage.setItem('bridle.session', JSON.stringify({ ...stored, token: stored.token + 'x' }));
    })()`);
    await page.reload();
    await shown(page.getByText('Your session has ended. Please sign in again.'));
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await page.evaluate(`sessionStorage.getItem('bridle.session')`)).toBeNull();
    await checkpoint('session-ended');
  }, 60_000);

  it('serves the console and the API docs under a Content-Security-Policy they need nothing outside of', async () => {
    const res = await page.goto(origin);
    const policy = new Map(
      (res?.headers()['content-security-policy'] ?? '').split(';').map((directive): [string, string] => {
        const [name, ...sources] = directive.trim().split(/\s+/);
        return [name, sources.join(' ')];
      }),
    );
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    await page.goto(`${origin}/docs`);
    await shown(page.getByRole('heading', { name: /Bridle/ }).first());
    expect(session.refusedByPolicy()).toEqual([]);
    await page.goto(origin);
  }, 60_000);
});
