import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { signUpAndIn, uniqueEmail } from '../support/accounts';
import { grantAdmin } from '../support/admins';
import { type ConsoleSession, openConsole, pageUntil, shown, eventually } from '../support/browser';

/** A phone of today: the widths the issue was seen at. */
const PHONE = { width: 390, height: 844 } as const;
const PASSWORD = 'correct horse battery';

/** Where an element is on the screen, and what bounds what the person sees of the thread. */
interface Seen {
  top: number;
  bottom: number;
  headerBottom: number;
  composerTop: number;
  innerHeight: number;
}

/** `selector`'s box against the visible part of the chat: below the sticky header, above the composer. */
async function seen(page: Page, selector: string): Promise<Seen> {
  return page.evaluate<Seen>(`(() => {
    const box = [...document.querySelectorAll(${JSON.stringify(selector)})].at(-1).getBoundingClientRect();
    return {
      top: box.top,
      bottom: box.bottom,
      headerBottom: document.querySelector('.app-header').getBoundingClientRect().bottom,
      composerTop: document.querySelector('.composer').getBoundingClientRect().top,
      innerHeight: window.innerHeight,
    };
  })()`);
}

/** Where the last element matching `selector` is, and whether all of it shows between the header and the composer. Read through eventually(). */
const inView = (page: Page, selector: string) =>
  seen(page, selector).then((box) => ({
    ...box,
    inView: box.top >= box.headerBottom - 1 && box.bottom <= Math.min(box.composerTop, box.innerHeight) + 1,
  }));

/** The console on a phone keeps the newest message in view, asks once, and keeps an active person signed in. */
describe('web console basics on a phone in Chromium', () => {
  describe('chat', () => {
    let session: ConsoleSession;
    let page: Page;

    beforeAll(async () => {
      session = await openConsole('basics-');
      ({ page } = session);
      await session.signUp(uniqueEmail(), PASSWORD);
      await page.setViewportSize(PHONE);
    }, 120_000);

    afterAll(async () => {
      await session?.close();
    });

    /** Sends `message` and waits until its turn is over. */
    async function turn(message: string): Promise<void> {
      // Counted in the page, so that the wait below compares with the count before this message.
      await page.evaluate(`window.__answersBefore = document.querySelectorAll('.message.assistant').length`);
      await page.getByLabel('Message').fill(message);
      await page.getByLabel('Message').press('Enter');
      await pageUntil(
        page,
        `document.querySelectorAll('.message.assistant').length === window.__answersBefore + 1 && document.querySelector('.message.assistant[aria-busy]') === null`,
      );
    }

    it('keeps the newest answer in view after every turn, past a screenful, and the delete card with it', async () => {
      const titles = ['Buy milk', 'Call mum', 'Pay rent', 'Water the plants', 'Book the dentist', 'Renew the passport'];
      for (const title of titles) {
        await turn(`Add ${title}`);
        await eventually(() => inView(page, '.message.assistant')).toMatchObject({ inView: true });
      }
      await turn("What's on my list?");
      await eventually(() => inView(page, '.message.assistant')).toMatchObject({ inView: true });
      // The conversation is longer than the screen: the page had to move for the answer to show.
      await eventually(() => page.evaluate<number>('document.documentElement.scrollHeight')).toBeGreaterThan(PHONE.height * 1.5);
      await eventually(() => page.evaluate<number>('window.scrollY')).toBeGreaterThan(0);

      await turn('delete book the dentist');
      const card = page.getByRole('group', { name: 'Delete 1 task?' });
      await shown(card);
      await eventually(() => inView(page, '.confirm-card')).toMatchObject({ inView: true });
      await eventually(() => inView(page, '.message.assistant')).toMatchObject({ inView: true });
      await session.checkpoint('phone-delete-card');
    }, 180_000);

    it('asks a confirmation once: the card, and not the model asking the same in words', async () => {
      const asking = page.locator('.message.assistant').last();
      await eventually(() => asking.locator('.confirm-card').count()).toBe(1);
      await eventually(() => asking.locator('.bubble.answer').count()).toBe(0);
      // On the whole screen, one question about the delete: the card's title.
      const thread = () => page.locator('.thread').innerText();
      await eventually(() => thread().then((text) => text.match(/delete[^?\n]*\?/gi))).toEqual(['Delete 1 task?']);
      await eventually(thread).not.toMatch(/Reply 'yes delete'/);

      // Opened again from the history, it still asks once.
      await page.reload();
      await page.getByRole('button', { name: 'Conversations' }).click();
      await page.getByRole('complementary', { name: 'Conversations' }).getByRole('listitem').first().getByRole('button').click();
      const card = page.getByRole('group', { name: 'Delete 1 task?' });
      await shown(card);
      await eventually(() => thread().then((text) => text.match(/delete[^?\n]*\?/gi))).toEqual(['Delete 1 task?']);
      await eventually(() => inView(page, '.confirm-card')).toMatchObject({ inView: true });

      await card.getByRole('button', { name: 'Yes, delete 1 task' }).click();
      await pageUntil(
        page,
        `document.querySelector('.confirm-card') === null && document.querySelector('.message.assistant[aria-busy]') === null`,
      );
      await eventually(() => inView(page, '.message.assistant')).toMatchObject({ inView: true });
      await shown(page.getByText("Deleted 'Book the dentist'").last());
    }, 120_000);

    it('leaves the view where it is when the person scrolls up while an answer comes, and follows again when they send', async () => {
      // The answer is held back a moment, so that the person scrolls up before it arrives.
      const stream = (url: URL) => url.pathname.endsWith('/chat/stream');
      await page.route(stream, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await route.continue();
      });
      await page.getByLabel('Message').fill("What's on my list?");
      await page.getByLabel('Message').press('Enter');
      await pageUntil(page, `document.querySelector('.message.assistant[aria-busy]') !== null`);
      await page.evaluate('window.scrollTo(0, 0)');
      await pageUntil(page, `document.querySelector('.message.assistant[aria-busy]') === null`, 30_000);
      await eventually(() => page.locator('.message.assistant').last().locator('.bubble.answer').count()).toBe(1);
      await eventually(() => page.evaluate<number>('window.scrollY')).toBe(0);
      await page.unroute(stream);

      await turn('Add one more thing');
      await eventually(() => inView(page, '.message.assistant')).toMatchObject({ inView: true });
    }, 60_000);
  });

  describe('session', () => {
    let session: ConsoleSession;
    let page: Page;

    beforeAll(async () => {
      // The shortest token the configuration allows, so that the test outlives one.
      session = await openConsole('basics-session-', { JWT_EXPIRES_IN: '60' });
      ({ page } = session);
      await page.setViewportSize(PHONE);
    }, 120_000);

    afterAll(async () => {
      await session?.close();
    });

    const me = (token: string) => page.request.get(`${session.origin}/auth/me`, { headers: { authorization: `Bearer ${token}` } });

    it('keeps a person who keeps working signed in past the first token, with no countdown; one who stops is signed out', async () => {
      await session.signUp(uniqueEmail(), PASSWORD);
      await page.setViewportSize(PHONE);
      const first = await session.stored();
      const stored = await eventually(() => page.evaluate<string | null>(`localStorage.getItem('bridle.session')`)).not.toBeNull();
      const firstExpiry = JSON.parse(stored!) as { expiresAt: number };
      // Working: typing now and then, until well past the first token's end.
      let typed = '';
      while (Date.now() < firstExpiry.expiresAt + 20_000) {
        typed += 'a';
        await page.getByLabel('Message').fill(typed);
        await eventually(() => page.getByText(/Session ends in/).count()).toBe(0);
        await page.waitForTimeout(3_000);
      }
      expect((await me(first.token)).status()).toBe(401);
      await shown(page.getByRole('navigation', { name: 'Main' }));
      const renewed = await session.stored();
      expect(renewed.token).not.toBe(first.token);
      expect((await me(renewed.token)).status()).toBe(200);
      // Still the same person, still working: a chat turn goes through.
      await page.getByLabel('Message').fill('Add still here');
      await page.getByLabel('Message').press('Enter');
      await shown(page.getByRole('complementary', { name: 'Tasks' }).getByText(/still here/i));

      // Away: nothing renews the token (at most once more), and when it ends the console says so.
      await page.getByRole('heading', { name: 'Bridle console' }).waitFor({ state: 'visible', timeout: 200_000 });
      await shown(page.getByText('Your session has ended. Please sign in again.'));
    }, 330_000);
  });

  describe('audit', () => {
    let session: ConsoleSession;
    let page: Page;

    beforeAll(async () => {
      session = await openConsole('basics-audit-');
      ({ page } = session);
      await page.setViewportSize(PHONE);
    }, 120_000);

    afterAll(async () => {
      await session?.close();
    });

    it("filters by an actor's email and exports exactly those rows as NDJSON", async () => {
      const http = session.origin;
      const [ada, bob] = [await signUpAndIn(http), await signUpAndIn(http)];
      for (const [user, title] of [
        [ada, 'Water the plants'],
        [bob, 'Call the plumber'],
        [ada, 'Buy milk'],
      ] as const) {
        await request(http)
          .post(`/api/${user.userId}/chat`)
          .set(user.auth)
          .send({ message: `add ${title}` })
          .expect(200);
      }
      const adminEmail = uniqueEmail();
      await session.signUp(adminEmail, PASSWORD);
      await grantAdmin(session.app, adminEmail);
      await page.goto(`${session.origin}/#audit`);
      await page.reload();
      await shown(page.getByRole('heading', { name: 'Audit log' }));
      await page.setViewportSize(PHONE);

      await page.getByLabel('Actor email').fill(ada.email.toUpperCase());
      const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/admin/audit-logs');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await answered;
      await pageUntil(page, `document.querySelector('.table[aria-busy]') === null`);
      const rows = page.locator('.table tbody tr');
      const column = (name: string) => rows.locator(`td[data-label="${name}"]`).allTextContents();
      await eventually(() => column('Actor').then((actors) => new Set(actors))).toEqual(new Set([ada.email]));
      // Her two tasks, each a pending row and its outcome; none of Bob's.
      await eventually(() => column('Tool')).toEqual(['add_task', 'add_task', 'add_task', 'add_task']);
      const shownSeqs = (await eventually(() => column('#')).toHaveLength(4)).map(Number);

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export NDJSON' }).click();
      const file = await (await download).path();
      const lines = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { seq: number; actorEmail: string; tool: string });
      expect(lines.map((row) => row.seq)).toEqual([...shownSeqs].reverse());
      expect(new Set(lines.map((row) => row.actorEmail))).toEqual(new Set([ada.email]));
      await session.checkpoint('audit-by-email');
    }, 120_000);
  });
});
