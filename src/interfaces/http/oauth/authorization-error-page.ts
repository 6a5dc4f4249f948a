import type { Response } from 'express';

/** Why /authorize refused a request: an OAuth error code and a sentence of Bridle's own. */
export interface AuthorizationRefusal {
  readonly status: number;
  readonly error: string;
  readonly description: string;
}

/**
 * Bridle's page for an /authorize request it will not start, shown in place of a redirect.
 * /authorize never sends the browser back to a client with an error (RFC 9700 §4.11.2):
 * anyone may register a client with a redirect URI on their own site, so an error redirect
 * would make Bridle's address a link that lands on any site, before anyone signs in. The
 * page names the problem and nothing of the client: no link, no host, no name of its choosing.
 * Plain HTML, no script or style, so the content security policy needs no exception.
 */
export function sendAuthorizationErrorPage(res: Response, refusal: AuthorizationRefusal): void {
  res
    .status(refusal.status)
    .set({ 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' })
    .send(
      [
        '<!doctype html>',
        '<html lang="en">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        '<title>Bridle: this authorization request cannot go on</title></head>',
        '<body><main>',
        '<h1>This authorization request cannot go on</h1>',
        `<p>The app that sent you here asked Bridle for access in a way Bridle does not accept, so nothing was shared and you were not sent back to it.</p>`,
        `<p>What was wrong: <code>${escapeHtml(refusal.error)}</code>: ${escapeHtml(refusal.description)}</p>`,
        '<p>Close this page, and start again from the app. If it happens again, the app needs fixing by whoever makes it.</p>',
        '</main></body>',
        '</html>',
      ].join('\n'),
    );
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]);
}
