import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, gone, openConsole, pageUntil, shown, eventually } from '../support/browser';

describe('web console in Chromium: chat and tasks', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;

  const checkpoint = (name: string) => session.checkpoint(name);
  const email = uniqueEmail();
  const password = 'correct horse battery';

  beforeAll(async () => {
    session = await openConsole('chat-');
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  const tasks = () => page.getByRole('complementary', { name: 'Tasks' });
  const task = (title: string) => tasks().getByRole('listitem').filter({ hasText: title });
  /** The newest assistant answer once its turn is over. */
  const lastAnswer = async () => {
    await pageUntil(page, `document.querySelector('.message.assistant[aria-busy]') === null`);
    return page.locator('.message.assistant').last();
  };

  it('signs up into the chat, streams an example prompt, lists as a list, and the panel and the assistant see the same tasks', async () => {
    await page.goto(origin);
    await shown(page.getByRole('heading', { name: 'Bridle console' }));
    await eventually(() => page.title()).toBe('Sign in · Bridle');
    await checkpoint('sign-in-page');

    // Creating the account signs in: no second form.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await shown(page.getByText('What can I help you with?'));
    await shown(tasks().getByText('No tasks yet.'));
    await eventually(() => page.title()).toBe('Chat · Bridle');
    // A fresh session shows no countdown: it renews while the person is active (console-basics.spec.ts).
    await eventually(() => page.getByText(/Session ends in/).count()).toBe(0);
    await checkpoint('empty-chat');

    // An example prompt: the answer arrives in pieces (recorded as the page renders them), then whole.
    // The pieces are sentences: each is sent once the reply check passed the words up to it.
    await page.evaluate(`(() => {
      window.__answerLengths = [];
      window.__composerButtons = new Set();
      new MutationObserver(() => {
        const answer = document.querySelector('.message.assistant:last-child .bubble.answer');
        if (answer) window.__answerLengths.push(answer.textContent.length);
        window.__composerButtons.add(document.querySelector('.composer button')?.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.getByRole('button', { name: 'Add buy milk with high priority' }).click();
    const added = await lastAnswer();
    // While the turn ran, the composer offered Stop instead of Send.
    await eventually(() => page.evaluate<boolean>(`window.__composerButtons.has('Stop')`)).toBe(true);
    await eventually(() => added.locator('.bubble.answer').textContent()).toBe("Got it! Added 'Buy milk' to your list. Anything else?");
    await eventually(() =>
      page.evaluate<number[]>('window.__answerLengths').then((lengths) => new Set(lengths.filter((n) => n > 0 && n < 53)).size),
    ).toBeGreaterThan(1);
    await eventually(() => added.locator('.tool-card summary').textContent()).toBe("Added 'Buy milk'Done");
    await shown(task('Buy milk'));
    await eventually(() => task('Buy milk').locator('.badge').textContent()).toBe('high');
    await checkpoint('example-prompt-answered');

    // A tool card opens on its details: the tool, its arguments and its result.
    await added.locator('.tool-card summary').click();
    await eventually(() => added.locator('.tool-card').textContent()).toContain('add_task');
    await eventually(() => added.locator('.tool-card pre').first().textContent()).toContain('"title": "Buy milk"');

    // A task added from the panel; the assistant's list (a real list) names both.
    await page.getByLabel('New task').fill('Call mum');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await shown(task('Call mum'));
    await page.getByLabel('Message').fill("what's on my list?");
    await page.getByLabel('Message').press('Enter');
    const listed = await lastAnswer();
    await eventually(() => listed.locator('.bubble.answer > p').first().textContent()).toBe('Here are your tasks:');
    await eventually(() => listed.locator('.bubble.answer ol > li').allTextContents()).toEqual([
      '☐ Buy milk (high priority)',
      '☐ Call mum',
    ]);
    await eventually(() =>
      listed.locator('.bubble.answer ol > li').evaluateAll((items) => items.map((item) => item.getAttribute('value'))),
    ).toEqual(['1', '2']);
    await checkpoint('list-rendered');

    // Ticked in the panel; the assistant's next list shows it done.
    await task('Call mum').getByRole('checkbox').check();
    // Ticked at once, and still ticked once the API has answered (the checkbox is free again).
    await pageUntil(page, `document.querySelector('.task[data-number="2"].is-done input:not(:disabled)') !== null`);
    await page.getByLabel('Message').fill("what's on my list?");
    await page.getByLabel('Message').press('Enter');
    const after = await lastAnswer();
    await eventually(() => after.locator('.bubble.answer ol > li').allTextContents()).toEqual(['☐ Buy milk (high priority)', '✓ Call mum']);
    await page.getByRole('button', { name: 'Done', exact: true }).click();
    await eventually(() => tasks().getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Call mum')]);
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await checkpoint('ticked');

    // Renamed in place.
    await page.getByRole('button', { name: "Edit 'Buy milk'" }).click();
    await page.getByLabel('Title of task 1').fill('Buy oat milk');
    await page.getByLabel('Title of task 1').press('Enter');
    await shown(task('Buy oat milk'));

    // Deleted from the panel: nothing goes before the person says yes.
    await page.getByRole('button', { name: "Delete 'Call mum'" }).click();
    const dialog = page.getByRole('alertdialog', { name: "Delete 'Call mum'?" });
    await shown(dialog);
    await checkpoint('delete-asks');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await gone(dialog.getByRole('button', { name: 'Cancel' }));
    await shown(task('Call mum'));
    await page.getByRole('button', { name: "Delete 'Call mum'" }).click();
    await dialog.getByRole('button', { name: 'Yes, delete' }).click();
    await gone(task('Call mum'));
    await shown(page.getByText("Deleted 'Call mum'"));

    // Deleted by chat: the same rule, asked in the conversation as a card.
    await page.getByLabel('Message').fill('delete the oat milk');
    await page.getByLabel('Message').press('Enter');
    const card = page.getByRole('group', { name: 'Delete 1 task?' });
    await shown(card);
    await shown(task('Buy oat milk'));
    await eventually(() => card.getByRole('listitem').allTextContents()).toEqual(['Buy oat milk']);
    await checkpoint('chat-delete-asks');
    await card.getByRole('button', { name: 'Yes, delete 1 task' }).click();
    await gone(task('Buy oat milk'));
    await shown(tasks().getByText('No tasks yet.'));
    await gone(card);
    await checkpoint('chat-deleted');

    expect(session.foreignRequests()).toEqual([]);
  }, 180_000);

  it('renders what the model writes as text, never as markup', async () => {
    await page.getByLabel('Message').fill('add <img src=x onerror=alert(1)> **bold**');
    await page.getByLabel('Message').press('Enter');
    const answer = await lastAnswer();
    await shown(task('<img src=x onerror=alert(1)>'));
    await eventually(() => answer.locator('img').count()).toBe(0);
    await eventually(() => answer.locator('.bubble.answer').textContent()).toContain('<img src=x onerror=alert(1)>');
    // Tidy up for the next test.
    await page.getByRole('button', { name: /^Delete '<img/ }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete' }).click();
    await shown(tasks().getByText('No tasks yet.'));
  }, 60_000);

  it('is usable with the keyboard alone: sign out, sign back in, move between pages', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await shown(page.getByRole('heading', { name: 'Bridle console' }));
    const focused = () => page.evaluate('document.activeElement.id || document.activeElement.textContent');

    await page.keyboard.press('Tab');
    await eventually(focused).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await eventually(focused).toBe('password');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await shown(page.getByRole('navigation', { name: 'Main' }));

    // From the brand at the top: Chat, then Campaigns.
    await page.evaluate(`document.querySelector('.brand').focus()`);
    for (let i = 0; i < 2; i++) await page.keyboard.press('Tab');
    await eventually(focused).toBe('Campaigns');
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Campaigns' }));
    // The new page starts at its heading (an effect after it renders: waited for, on a busy
    // machine it lands after the heading shows); the next stop is its first field, which Enter submits.
    await pageUntil(page, `document.activeElement?.id === 'campaigns-title'`);
    await page.keyboard.press('Tab');
    await eventually(focused).toBe('campaign-name');
    await page.keyboard.type('Keyboard campaign');
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Keyboard campaign' }));
    await eventually(() => page.title()).toBe('Campaigns · Bridle');
  }, 120_000);

  it('lists the 20 most recent conversations with their age, and older ones on request', async () => {
    const { token, userId } = await session.stored();
    for (let i = 1; i <= 21; i++) {
      const res = await page.request.post(`${origin}/api/${userId}/chat`, {
        headers: { authorization: `Bearer ${token}` },
        data: { message: `add errand ${i}` },
      });
      expect(res.status()).toBe(200);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    const conversations = page.getByRole('complementary', { name: 'Conversations' }).getByRole('listitem');
    const older = page.getByRole('button', { name: 'Show older conversations' });
    await shown(older);
    await eventually(() => conversations.count()).toBe(20);
    await eventually(() => conversations.first().textContent()).toMatch(/^Add errand 21just now$/i);
    await older.click();
    await older.waitFor({ state: 'hidden', timeout: 15_000 });
    // 21 errands, and the conversations of the first test.
    await eventually(() => conversations.count()).toBeGreaterThan(21);
    // A conversation opens with its history.
    await conversations.first().getByRole('button').click();
    await shown(page.locator('.message.user').filter({ hasText: 'add errand 21' }));
    await page.setViewportSize({ width: 375, height: 812 });
  }, 60_000);

  it('changes the password in settings: this session goes on, others end', async () => {
    const before = await session.stored();
    await page.getByRole('link', { name: 'Settings' }).click();
    await shown(page.getByRole('heading', { name: 'Settings' }));
    await eventually(() => page.title()).toBe('Settings · Bridle');
    await checkpoint('settings');
    await page.getByLabel('Current password').fill(password);
    await page.getByLabel('New password', { exact: true }).fill('a new horse battery');
    await page.getByLabel('New password, again').fill('a new horse battery');
    await page.getByRole('button', { name: 'Change password' }).click();
    await shown(page.getByText('Password changed.'));
    const res = await page.request.get(`${origin}/auth/me`, { headers: { authorization: `Bearer ${before.token}` } });
    expect(res.status()).toBe(401);
    const now = await session.stored();
    expect(now.token).not.toBe(before.token);
    expect((await page.request.get(`${origin}/auth/me`, { headers: { authorization: `Bearer ${now.token}` } })).status()).toBe(200);
  }, 60_000);

  it('takes a person whose token no longer holds back to sign-in, saying why', async () => {
    // What a token past JWT_EXPIRES_IN looks like to the console: the API answers 401.
    await page.evaluate(`(() => {
      const stored = JSON.parse(localStorage.getItem('bridle.session'));
      localStorage.setItem('bridle.session', JSON.stringify({ ...stored, token: stored.token + 'x' }));
    })()`);
    await page.reload();
    await shown(page.getByText('The bearer token is invalid or has expired'));
    await eventually(() => page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await eventually(() => page.evaluate(`localStorage.getItem('bridle.session')`)).toBeNull();
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
    expect((await page.request.get(`${origin}/favicon.svg`)).status()).toBe(200);
    await page.goto(`${origin}/docs`);
    await shown(page.getByRole('heading', { name: /Bridle/ }).first());
    expect(session.refusedByPolicy()).toEqual([]);
    await page.goto(origin);
  }, 60_000);
});
