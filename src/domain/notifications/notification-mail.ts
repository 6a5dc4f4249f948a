import { consoleLink } from './notification';
import { type ItemWords, itemWords, type MailItem, oneLine } from './mail-items';

/** A mail to one person: its subject line, and the same words as plain text and as simple HTML. */
export interface NotificationMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** How many notifications one mail lists at most; the rest wait for the next one. */
export const DIGEST_ITEMS_MAX = 50;

const SUBJECT_CHARS = 120;

/** `text` with the five characters that mean something in HTML (text or an attribute value) escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The items as one mail, in the order they happened: one item is a mail about it, several a
 * digest. An item the person got twice (an escalated draft of an admin's own: once as its owner,
 * once as an admin) is shown once, as its owner's. Every link is the console's address of the
 * item's subject, a hash route that changes nothing by being fetched.
 * @param baseUrl PUBLIC_BASE_URL, without a trailing slash.
 * @param now when the mail is written.
 */
export function notificationMail(items: readonly MailItem[], baseUrl: string, now: Date): NotificationMail {
  const shown = onceEach(items).map((item) => ({ words: itemWords(item, now), link: `${baseUrl}/${consoleLink(item.subject)}` }));
  if (shown.length === 0) throw new Error('a notification mail needs at least one item');
  const settings = `${baseUrl}/#settings`;
  const footer =
    'You get this mail because you have an account on this Bridle. Choose which notifications reach you by email in your settings:';
  const subject = shown.length === 1 ? oneLine(shown[0].words.title, SUBJECT_CHARS) : `Bridle: ${shown.length} notifications`;
  const intro = shown.length === 1 ? null : `${shown.length} things happened since the last mail:`;

  const text = [
    ...(intro ? [intro, ''] : []),
    ...shown.flatMap(({ words, link }, index) => [...textItem(words, link, shown.length === 1 ? null : index + 1), '']),
    '--',
    footer,
    settings,
    '',
  ].join('\n');

  const html = [
    '<!doctype html>',
    '<html><body style="font-family:sans-serif;line-height:1.4">',
    ...(intro ? [`<p>${escapeHtml(intro)}</p>`] : []),
    ...shown.map(({ words, link }) => htmlItem(words, link)),
    `<hr><p style="color:#555;font-size:small">${escapeHtml(footer)} <a href="${escapeHtml(settings)}">${escapeHtml(settings)}</a></p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject, text, html };
}

/** Each (event, subject) once: a person's own copy before the admins' copy of the same thing. */
function onceEach(items: readonly MailItem[]): MailItem[] {
  const kept = new Map<string, MailItem>();
  for (const item of items) {
    const key = `${item.event} ${JSON.stringify(item.subject)}`;
    const before = kept.get(key);
    if (!before || (before.toAdmins && !item.toAdmins)) kept.set(key, item);
  }
  return [...kept.values()].sort((a, b) => a.seq - b.seq);
}

function textItem(words: ItemWords, link: string, number: number | null): string[] {
  const indent = number === null ? '' : '   ';
  return [
    number === null ? words.title : `${number}. ${words.title}`,
    ...words.lines.map((line) => `${indent}${line}`),
    ...(words.quote === null ? [] : words.quote.split('\n').map((line) => `${indent}> ${line}`)),
    `${indent}${words.linkLabel}: ${link}`,
  ];
}

function htmlItem(words: ItemWords, link: string): string {
  return [
    '<div style="margin:0 0 1.5em">',
    `<h3 style="margin:0 0 .4em">${escapeHtml(words.title)}</h3>`,
    ...words.lines.map((line) => `<p style="margin:.2em 0">${escapeHtml(line)}</p>`),
    ...(words.quote === null
      ? []
      : [
          `<blockquote style="white-space:pre-wrap;border-left:3px solid #ccc;margin:.5em 0;padding-left:.7em">${escapeHtml(words.quote)}</blockquote>`,
        ]),
    `<p style="margin:.4em 0"><a href="${escapeHtml(link)}">${escapeHtml(words.linkLabel)}</a></p>`,
    '</div>',
  ].join('\n');
}
