import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM } from '../support/browser';

/**
 * web/src/lib/markdown-html.ts and its packages (marked, DOMPurify) as one script that sets
 * `window.markdown`, bundled by rolldown (an ES module only, so in a child process).
 */
function markdownBundle(): string {
  const script = `
    import { build } from 'rolldown';
    const { output } = await build({
      input: ${JSON.stringify(join(__dirname, '../../web/src/lib/markdown-html.ts'))},
      output: { format: 'iife', name: 'markdown' },
      write: false,
      logLevel: 'silent',
    });
    process.stdout.write(output[0].code);
  `;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

/**
 * The console's rendering of the model's Markdown (web/src/lib/markdown-html.ts), as a unit in
 * Chromium: whatever link the model writes (inline, with a title or in angle brackets,
 * reference-style, an autolink, a bare URL, an image, an HTML `<a>`; to `javascript:`,
 * `data:`, `vbscript:`, `file:`, in mixed case, entity-encoded, with spaces or credentials),
 * every anchor rendered goes to an http(s) URL, shows that URL in full as its text, and opens
 * apart from the console; and a plain http(s) link is never lost.
 */

interface Anchor {
  readonly href: string | null;
  readonly text: string;
  readonly target: string | null;
  readonly rel: string | null;
}

const SCHEMES = [
  'javascript:',
  'JaVaScRiPt:',
  ' javascript:',
  'java\tscript:',
  '&#106;avascript:',
  '&#x6A;avascript:',
  'javascript&colon;',
  'data:text/html,',
  'DATA:',
  'vbscript:',
  'VBScript:',
  'file:///',
  'mailto:',
  'ftp://',
  '//',
  'http://',
  'https://',
  'HTTPS://',
  'https://user:pw@',
  'https://bank.example@',
];
const HOSTS = ['example.com', 'evil.example', 'ex\u0430mple.com', '127.0.0.1:8080', 'Example.COM'];
const word = fc.stringMatching(/^[a-z]{1,8}$/);
const query = fc.stringMatching(/^[a-zA-Z0-9%=&._-]{0,24}$/).map((data) => (data === '' ? '' : `?data=${data}`));
const url = fc
  .tuple(fc.constantFrom(...SCHEMES), fc.constantFrom(...HOSTS), fc.array(word, { maxLength: 3 }), query)
  .map(([scheme, host, path, data]) => `${scheme}${host}/${path.join('/')}${data}`);
const words = fc.oneof(
  fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(' ')),
  fc.constantFrom('click me', '**bold** words', 'https://bank.example', 'www.example.com'),
  url,
);

/** A link in each way Markdown (and HTML) can write one. */
const markdownLink: fc.Arbitrary<{ readonly markdown: string; readonly url: string }> = fc.oneof(
  fc.tuple(words, url).map(([text, to]) => ({ markdown: `See [${text}](${to}) now.`, url: to })),
  fc.tuple(words, url).map(([text, to]) => ({ markdown: `[${text}](<${to}> "a title")`, url: to })),
  fc.tuple(words, url).map(([text, to]) => ({ markdown: `Go [${text}][ref].\n\n[ref]: ${to}`, url: to })),
  url.map((to) => ({ markdown: `Autolink <${to}> here`, url: to })),
  url.map((to) => ({ markdown: `Bare ${to} here`, url: to })),
  fc.tuple(words, url).map(([text, to]) => ({ markdown: `![${text}](${to})`, url: to })),
  fc.tuple(words, url).map(([text, to]) => ({ markdown: `<a href="${to}">${text}</a>`, url: to })),
);

describe('the rendering of the model’s links (markdownHtml in Chromium)', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const bundle = markdownBundle();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    await page.setContent('<!doctype html><title>markdown</title>');
    await page.addScriptTag({ content: bundle });
  }, 120_000);
  afterAll(() => browser?.close());

  /** The anchors markdownHtml renders for `markdown`, read in the page. */
  const anchorsOf = (markdown: string): Promise<Anchor[]> =>
    page.evaluate<Anchor[]>(`(() => {
      const holder = document.createElement('div');
      holder.innerHTML = window.markdown.markdownHtml(${JSON.stringify(markdown)});
      return [...holder.querySelectorAll('a')].map((a) => ({
        href: a.getAttribute('href'),
        text: a.textContent,
        target: a.getAttribute('target'),
        rel: a.getAttribute('rel'),
      }));
    })()`);

  /** The text a person reads of what markdownHtml renders for `markdown`. */
  const shownText = (markdown: string): Promise<string> =>
    page.evaluate<string>(`(() => {
      const holder = document.createElement('div');
      holder.innerHTML = window.markdown.markdownHtml(${JSON.stringify(markdown)});
      return holder.textContent;
    })()`);

  const destination = (href: string) => page.evaluate<string | null>(`window.markdown.linkDestination(${JSON.stringify(href)})`);

  it('renders every anchor to an http(s) URL, showing it whole', async () => {
    await fc.assert(
      fc.asyncProperty(markdownLink, async ({ markdown }) => {
        for (const anchor of await anchorsOf(markdown)) {
          expect(anchor.href).toMatch(/^https?:\/\/[^/@]+\//);
          expect(anchor.text).toBe(anchor.href);
          expect(anchor.target).toBe('_blank');
          expect(anchor.rel).toBe('noopener noreferrer');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps a plain http(s) link, as the URL parser writes it', async () => {
    const plain = fc
      .tuple(
        fc.constantFrom('http://', 'https://'),
        fc.constantFrom('example.com', 'ex\u0430mple.com', 'Example.COM'),
        fc.array(word, { maxLength: 3 }),
        query,
      )
      .map(([scheme, host, path, data]) => `${scheme}${host}/${path.join('/')}${data}`);
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 1, maxLength: 3 }), plain, async (text, to) => {
        const expected = await destination(to);
        expect(expected).not.toBeNull();
        const anchors = await anchorsOf(`[${text.join(' ')}](${to})`);
        expect(anchors.map((anchor) => anchor.href)).toEqual([expected]);
      }),
      { numRuns: 100 },
    );
  });

  it.each([
    ['words over a link', '[click me](https://elsewhere.example/?data=secret)', 'click me (https://elsewhere.example/?data=secret)'],
    ['an address over another', '[https://bank.example](https://evil.example/login)', 'https://bank.example (https://evil.example/login)'],
    ['a look-alike host', '<https://ex\u0430mple.com/a>', 'https://xn--exmple-4nf.com/a'],
    ['credentials hiding the host', '[bank](https://bank.example@evil.example/)', 'bank'],
    ['a javascript: link', '[run](javascript:alert(1))', 'run'],
    ['a bare URL', 'see www.example.com today', 'see http://www.example.com/ today'],
    ['an image', '![pixel](https://tracker.example/p.png)', 'pixel (https://tracker.example/p.png)'],
    ['an email address', 'write to ada@example.com', 'write to ada@example.com'],
  ])('shows %s as the person must read it', async (_, markdown, shown) => {
    const text = await shownText(markdown);
    expect(text).toBe(shown);
  });
});
