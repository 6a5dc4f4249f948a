import type { Page } from 'playwright-core';
import { say, ScriptedLanguageModel } from '../fakes/scripted-language-model';
import { uniqueEmail } from '../support/accounts';
import { type ConsoleSession, openConsole, pageUntil, shown, eventually } from '../support/browser';

/** What a real provider's model writes: a heading, a table, a fence, and links and HTML meant to run. */
const ANSWER = [
  '## Your week',
  '',
  '| Day | Task |',
  '|-----|------|',
  '| Mon | Buy milk |',
  '| Tue | Call Ada |',
  '',
  '```js',
  'const total = 1 + 2;',
  '```',
  '',
  '[Run the tidy-up](javascript:window.pwned=1) or [read the guide](https://example.com/guide).',
  '',
  '[click me](https://elsewhere.example/collect?data=Buy%20milk) or https://example.com/plain',
  '',
  '<img src="x" onerror="window.pwned=2"> ![pixel](https://tracker.example/p.png)',
  '',
  '<button>Yes, delete all</button>',
].join('\n');

/**
 * The assistant's Markdown as a real provider writes it renders as elements
 * (heading, table, code block), and nothing the model writes runs, loads or acts: no
 * `javascript:` href, no image, no element from its raw HTML, no button. A link goes only to
 * an http(s) address that it shows whole: words over it stay as text before it
 * (docs/security.md, "Links in the model's words").
 */
describe('web console in Chromium: an answer in Markdown', () => {
  let session: ConsoleSession;
  let page: Page;
  const model = new ScriptedLanguageModel();

  beforeAll(async () => {
    session = await openConsole('markdown-', {}, { languageModel: model });
    ({ page } = session);
    await session.signUp(uniqueEmail(), 'correct horse battery');
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('renders the heading, table and code fence as elements, and no link, image or HTML of the model runs', async () => {
    model.use(() => say(ANSWER));
    await page.getByLabel('Message').fill('what is on this week?');
    await page.getByLabel('Message').press('Enter');
    const answer = page.locator('.message.assistant .bubble.answer').last();
    await shown(answer.locator('table'));
    await pageUntil(page, `!document.querySelector('.message.assistant[aria-busy]')`);

    await shown(answer.getByRole('heading', { name: 'Your week', level: 2 }));
    await eventually(() => answer.locator('thead th').allTextContents()).toEqual(['Day', 'Task']);
    await eventually(() => answer.locator('tbody tr').count()).toBe(2);
    await eventually(() => answer.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['Mon', 'Buy milk']);
    await eventually(() => answer.locator('pre > code').textContent()).toBe('const total = 1 + 2;\n');

    // Only http(s) links, each showing its whole destination; words over a link stay as text before it.
    const link = (href: string) => ({ text: href, href, target: '_blank', rel: 'noopener noreferrer' });
    await eventually(() =>
      answer.locator('a').evaluateAll((anchors) =>
        anchors.map((a) => ({
          text: a.textContent,
          href: a.getAttribute('href'),
          target: a.getAttribute('target'),
          rel: a.getAttribute('rel'),
        })),
      ),
    ).toEqual([
      link('https://example.com/guide'),
      link('https://elsewhere.example/collect?data=Buy%20milk'),
      link('https://example.com/plain'),
      link('https://tracker.example/p.png'),
    ]);
    const text = await eventually(() => answer.textContent()).toContain('Run the tidy-up or read the guide (https://example.com/guide).');
    expect(text).toContain('click me (https://elsewhere.example/collect?data=Buy%20milk) or https://example.com/plain');
    expect(text).toContain('pixel (https://tracker.example/p.png)');
    // The model's HTML is the text it typed, not elements: no image, no handler, no button.
    await eventually(() => answer.locator('img, button, [onerror], [href^="javascript" i]').count()).toBe(0);
    await eventually(() => answer.textContent()).toContain('<img src="x" onerror="window.pwned=2">');
    await eventually(() => answer.textContent()).toContain('<button>Yes, delete all</button>');
    await eventually(() => page.getByRole('button', { name: 'Yes, delete all' }).count()).toBe(0);

    await answer.getByText('Run the tidy-up').click();
    await eventually(() => page.evaluate('window.pwned')).toBeUndefined();
    expect(session.foreignRequests()).toEqual([]);
    expect(session.refusedByPolicy()).toEqual([]);

    await session.checkpoint('answer');
  });
});
