import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

/**
 * The assistant's answers as GitHub-flavoured Markdown (marked): paragraphs, line breaks,
 * headings, lists, tables, code spans and fences, emphasis, links. The model's words are
 * untrusted, so the HTML marked writes then goes through DOMPurify with an allowlist:
 * - no raw HTML: the model's tags show as the text it typed;
 * - no images, nor anything else that makes the browser fetch: an image shows as a link;
 * - links only to http(s) and mailto (any other href is dropped, so `javascript:` is plain
 *   text), opening in a new tab without the console as opener or referrer;
 * - no form controls, buttons, ids, classes, styles, ARIA or data attributes: nothing the
 *   model writes can label or imitate the console's own controls.
 * Headings are renumbered from h2 down, in the order of their levels, so an answer's outline
 * fits under the page's h1 without skipping a level.
 */
export function Markdown({ text, class: className, role }: { text: string; class?: string; role?: 'alert' }) {
  return <div class={className} role={role} dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}

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
const SAFE_URL = /^(?:https?:|mailto:)/i;

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

// An instance of its own, so that its hook touches no other use of DOMPurify.
const purify = DOMPurify(window);
// After the allowlist ran: a link that kept its href (a safe one) opens apart from the console.
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

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

/** Safe HTML for the answer's text: see Markdown. */
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
  const holder = document.createElement('div');
  holder.append(fragment);
  return holder.innerHTML;
}
