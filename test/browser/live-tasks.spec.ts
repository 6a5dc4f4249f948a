import type { Server } from 'node:http';
import type { Page, Response } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, eventually, openConsole, shown } from '../support/browser';

// The live channel (GET /api/:userId/tasks/events): a task changed anywhere shows in every
// open console of the person, without a reload or a tab switch.
describe('web console live task updates in Chromium', () => {
  let session: ConsoleSession;
  let pageA: Page;
  let pageB: Page;
  let origin: string;

  beforeAll(async () => {
    session = await openConsole('live-');
    ({ page: pageA, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  const tasks = (page: Page) => page.getByRole('complementary', { name: 'Tasks' });
  const task = (page: Page, title: string) => tasks(page).getByRole('listitem').filter({ hasText: title });
  const isEventStream = (res: Response) => new URL(res.url()).pathname.endsWith('/tasks/events');
  /** Resolves once the page's stream is open: the server subscribes before it answers. */
  const listening = (page: Page) => page.waitForResponse((res) => isEventStream(res) && res.status() === 200, { timeout: 30_000 });

  it('shows a task added in one tab, by the REST API or by the chat in the other tab at once', async () => {
    const openA = listening(pageA);
    await session.signUp(uniqueEmail(), 'correct horse battery');
    await openA;
    const { token, userId } = await session.stored();

    // A second tab of the same browser: signed in through the shared storage.
    pageB = await pageA.context().newPage();
    const openB = listening(pageB);
    await pageB.goto(origin);
    await shown(tasks(pageB).getByText('No tasks yet.'));
    await openB;
    expect((await openB).headers()['content-type']).toMatch(/^text\/event-stream/);
    const navigations: string[] = [];
    pageB.on('framenavigated', (frame) => navigations.push(frame.url()));
    await pageB.evaluate(`(() => {
      window.__visibilityChanges = 0;
      document.addEventListener('visibilitychange', () => (window.__visibilityChanges += 1));
    })()`);

    await pageA.getByLabel('New task').fill('Call mum');
    await pageA.getByRole('button', { name: 'Add', exact: true }).click();
    await shown(task(pageB, 'Call mum'));

    const added = await pageA.request.post(`${origin}/api/${userId}/tasks`, {
      headers: { authorization: `Bearer ${token}` },
      data: { title: 'Water the plants' },
    });
    expect(added.status()).toBe(201);
    await shown(task(pageB, 'Water the plants'));
    await shown(task(pageA, 'Water the plants'));

    await pageA.getByLabel('Message').fill('add buy milk');
    await pageA.getByLabel('Message').press('Enter');
    await shown(task(pageB, 'Buy milk'));

    expect(navigations).toEqual([]);
    await eventually(() => pageB.evaluate<number>('window.__visibilityChanges')).toBe(0);
  }, 120_000);

  it('reconnects after the connection drops, and reads the list again', async () => {
    const { token, userId } = await session.stored();
    const reopened = listening(pageB);
    // Every socket cut, as a restarting proxy would: the tabs open their streams again after a backoff.
    (session.app as unknown as { getHttpServer(): Server }).getHttpServer().closeAllConnections();
    // Most likely while no stream is open: the tab learns of it by reading the list on reconnecting.
    const added = await pageA.request.post(`${origin}/api/${userId}/tasks`, {
      headers: { authorization: `Bearer ${token}` },
      data: { title: 'Pay the rent' },
    });
    expect(added.status()).toBe(201);
    await reopened;
    await shown(task(pageB, 'Pay the rent'));

    const more = await pageA.request.post(`${origin}/api/${userId}/tasks`, {
      headers: { authorization: `Bearer ${token}` },
      data: { title: 'Book the dentist' },
    });
    expect(more.status()).toBe(201);
    await shown(task(pageB, 'Book the dentist'));
  }, 120_000);

  it('stops listening on sign-out', async () => {
    const ended = pageB.waitForEvent('requestfailed', { predicate: (request) => request.url().endsWith('/tasks/events'), timeout: 30_000 });
    await pageA.getByRole('button', { name: 'Sign out' }).click();
    await shown(pageB.getByRole('button', { name: 'Create account' }));
    await ended;
  }, 120_000);
});
