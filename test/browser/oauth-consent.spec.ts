import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, openConsole, pageUntil, shown, eventually } from '../support/browser';

// An MCP client sends a person who is not signed in to /authorize: they sign in, read who
// asks for what, and Allow sends the browser back to the client with a code that works once.
describe('web console consent page in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    session = await openConsole('consent-');
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('signs the person in, shows the request as text, and returns to the client with a code', async () => {
    // The client's redirect URI is on the app's own origin: the page may reach no other.
    const redirectUri = `${origin}/health`;
    const registered = await page.request.post(`${origin}/register`, {
      data: { client_name: 'Desk <img src=x onerror=alert(1)> client', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
    });
    expect(registered.status()).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'tasks:read tasks:write',
      state: 'from-the-client',
    });

    await page.goto(`${origin}/authorize?${query.toString()}`);
    await shown(page.getByText('An app asks to use your Bridle account. Sign in to answer it.'));
    await page.getByLabel('Email').fill(uniqueEmail());
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();

    await shown(page.getByRole('heading', { name: 'Allow access to your Bridle account?' }));
    await shown(page.getByText('Desk <img src=x onerror=alert(1)> client'));
    await eventually(() => page.locator('main img').count()).toBe(0);
    await shown(page.getByText(new URL(origin).host, { exact: true }));
    await shown(page.getByLabel('See your tasks'));
    await session.checkpoint('consent');

    await page.getByLabel('Add, change, complete and delete your tasks').uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await pageUntil(page, `location.pathname === '/health' && new URLSearchParams(location.search).has('code')`);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('from-the-client');

    const tokens = await page.request.post(`${origin}/token`, {
      form: {
        grant_type: 'authorization_code',
        client_id: clientId,
        code: back.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: redirectUri,
      },
    });
    expect(tokens.status()).toBe(200);
    expect(await tokens.json()).toMatchObject({ token_type: 'Bearer', scope: 'tasks:read' });
    expect(session.foreignRequests()).toEqual([]);
  });
});
