import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

/**
 * The assistant's answers as GitHub-flavoured Markdown (marked): paragraphs, line breaks,
 * headings, lists, tables, code spans and fences, emphasis, links. The model's words are
 * untrusted, so the HTML marked writes then goes through DOMPurify with an allowlist:
 * - no raw HTML: the model's tags show as the text it typed (an `<a>` too);
 * - no images, nor anything else that makes the browser fetch: an image is a link;
 * - no form controls, buttons, ids, classes, styles, ARIA or data attributes: nothing the
 *   model writes can label or imitate the console's own controls.
 * Links follow one rule (`shownLinks`): only http(s), and never a destination hidden behind
 * words. Headings are renumbered from h2 down, in the order of their levels, so an answer's
 * outline fits under the page's h1 without skipping a level.
 */
const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'a',
];
const ALLOWED_ATTR = ['href', 'start', 'value', 'align'];
const SAFE_URL = /^https?:/i;

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const marked = new Marked({
  gfm: true,
  // A single newline is a line break, as people and models write chat.
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    image: ({ href, text }: Tokens.Image) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
    // Each item keeps the number the model gave it: "1. Buy milk" then "3. Call mum" are tasks 1
    // and 3, not a list that Markdown would renumber 1, 2.
    list(token: Tokens.List) {
      if (!token.ordered) return false;
      const items = token.items.map((item) => {
        const number = /^\s*(\d{1,9})[.)]/.exec(item.raw)?.[1];
        return this.listitem(item).replace(/^<li>/, number === undefined ? '<li>' : `<li value="${Number(number)}">`);
      });
      const start = token.start === '' || token.start === 1 ? '' : ` start="${Number(token.start)}"`;
      return `<ol${start}>${items.join('')}</ol>`;
    },
  },
});

// An instance of its own, so that nothing set on it touches another use of DOMPurify.
const purify = DOMPurify(window);

/** Heading depths 1–6 as the answer uses them, mapped in order to h2, h3…: `### a` then `#### b` become h2 then h3. */
function renumberHeadings(tokens: ReturnType<typeof marked.lexer>) {
  const headings: Tokens.Heading[] = [];
  // Synchronous: no extension is async, so walkTokens has no promises to give.
  void marked.walkTokens(tokens, (token) => {
    if (token.type === 'heading') headings.push(token as Tokens.Heading);
  });
  const levels = [...new Set(headings.map((heading) => heading.depth))].sort((a, b) => a - b);
  for (const heading of headings) heading.depth = Math.min(2 + levels.indexOf(heading.depth), 6);
}

/** Elements whose own text is only their children's: a line end between those is marked's layout, not the answer's. */
const CONTAINERS = new Set(['UL', 'OL', 'TABLE', 'THEAD', 'TBODY', 'TR', 'BLOCKQUOTE']);

/** Safe HTML for the answer's text: see the top of this file. */
export function markdownHtml(text: string): string {
  const tokens = marked.lexer(text);
  renumberHeadings(tokens);
  const fragment = purify.sanitize(marked.parser(tokens), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_ARIA_ATTR: false,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  const layout: Text[] = [];
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentNode;
    if (/^\s*$/.test(node.nodeValue ?? '') && (parent === fragment || CONTAINERS.has((parent as Element).tagName)))
      layout.push(node as Text);
  }
  for (const node of layout) node.remove();
  shownLinks(fragment);
  const holder = document.createElement('div');
  holder.append(fragment);
  return holder.innerHTML;
}

/**
 * Where a link of the model's goes, as the browser will follow it: an absolute http(s) URL
 * without a user name or password (`https://bank.example@evil.example/` hides its host),
 * written as the URL parser writes it (its host in punycode, so a look-alike letter shows as
 * `xn--…`; its path and query percent-encoded). Null for anything else.
 */
export function linkDestination(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') return null;
  return url.href;
}

/** True when `words` are the address `destination` itself ("www.example.com", "https://Example.com"). */
function wordsAreAddress(words: string, destination: string): boolean {
  const text = words.trim();
  return [text, `http://${text}`, `https://${text}`].some((candidate) => linkDestination(candidate) === destination);
}

/**
 * The one rule for the model's links, applied to every anchor the sanitised answer holds
 * (Markdown links, reference links, autolinks, bare URLs, images): a person sees where a link
 * goes before following it, since words over a link are how an injected instruction sends
 * what the model read to another site (`[click me](https://elsewhere.example/?data=…)`).
 * - A link to anything but an http(s) URL without credentials is no link: its words stay, as text.
 * - A link whose words are its address shows the whole address, as the browser will follow it.
 * - Any other link's words stay as text, followed by its whole address in parentheses, which
 *   alone is the link: "click me (https://elsewhere.example/?data=…)".
 * Every link opens in a new tab, without the console as its opener or referrer.
 */
function shownLinks(root: DocumentFragment): void {
  for (const anchor of [...root.querySelectorAll('a')]) {
    const destination = linkDestination(anchor.getAttribute('href') ?? '');
    if (destination === null) {
      anchor.replaceWith(...anchor.childNodes);
      continue;
    }
    const link = document.createElement('a');
    link.setAttribute('href', destination);
    link.setAttribute('target', '_blank');
    link.setAttribute('rel', 'noopener noreferrer');
    link.textContent = destination;
    if (wordsAreAddress(anchor.textContent ?? '', destination)) anchor.replaceWith(link);
    else anchor.replaceWith(...anchor.childNodes, ' (', link, ')');
  }
}
