import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import type { Request, Response } from 'express';
import { UnsubscribeUseCase } from '../../../application/outreach/unsubscribe/unsubscribe.use-case';
import { UnsubscribeLinkInvalidError } from '../../../domain/outreach/unsubscribe';
import { ApiErrors } from '../shared/api-errors.decorator';
import { ErrorResponseDto } from '../shared/error-response.dto';
import { RateLimit } from '../shared/rate-limit';

export class UnsubscribePathDto {
  @ApiProperty({
    description: 'The signed token of an unsubscribe link, as the footer of an outreach email gives it',
    example: 'dW5zdWJzY3JpYmUK.c2lnbmF0dXJl',
  })
  @IsString()
  token!: string;
}

const HTML = { 'text/html': { schema: { type: 'string' as const } } };

const NOT_A_LINK = {
  status: 404,
  description:
    'OUTREACH.UNSUBSCRIBE_LINK_INVALID: not a link Bridle made (forged, altered, truncated, or for another purpose); ' +
    'nothing is said about why, and nothing changes. A browser (Accept: text/html) gets a short page instead of the error body.',
  content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) } }, ...HTML },
};

/**
 * The link in the footer of every outreach email, for its recipient: no login, the signed
 * token is the permission. GET only asks (mail scanners fetch links to check them, RFC 8058
 * §1), POST does it: the page's button, and the one-click POST of mail clients that read
 * `List-Unsubscribe-Post`. The pages are plain HTML with no script and no style, so the
 * service's Content-Security-Policy holds for them as it is.
 */
@ApiTags('unsubscribe')
@ApiErrors({
  status: 400,
  description: 'VALIDATION.FAILED: the token holds what no text may (a NUL, a lone surrogate); the message names it',
})
@Controller('unsubscribe')
export class UnsubscribeController {
  constructor(private readonly unsubscribe: UnsubscribeUseCase) {}

  @Get(':token')
  @RateLimit('default')
  @ApiOperation({
    operationId: 'getUnsubscribePage',
    summary: "Ask the recipient of an outreach email to confirm they want no more (an unsubscribe link's page)",
    description:
      'Changes nothing: mail scanners open links to check them. The page names the address and has one button, ' +
      'which POSTs to the same URL.',
  })
  @ApiOkResponse({ description: 'The confirmation page (HTML, no script)', content: HTML })
  @ApiResponse(NOT_A_LINK)
  page(@Param() path: UnsubscribePathDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): string {
    try {
      return html(res, 200, confirmationPage(this.unsubscribe.check(path.token).email));
    } catch (error) {
      return refused(error, req, res);
    }
  }

  @Post(':token')
  @HttpCode(200)
  @RateLimit('default')
  @ApiOperation({
    operationId: 'unsubscribe',
    summary: "Put the recipient of an outreach email on the campaign owner's do-not-contact list",
    description:
      "Takes effect at once and is audited (source outreach, tool unsubscribe, the owner as actor): the owner's " +
      'campaigns reach the address no more, and the next cycle of any task for it is cancelled (DO_NOT_CONTACT). ' +
      'Idempotent: using the link again changes nothing. This is the URL of the List-Unsubscribe header, so mail ' +
      'clients POST `List-Unsubscribe=One-Click` to it (RFC 8058); the body is not needed.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    required: false,
    description: 'What a one-click mail client and the confirmation page send; not read',
    schema: { type: 'object', properties: { 'List-Unsubscribe': { type: 'string', enum: ['One-Click'] } } },
  })
  @ApiOkResponse({ description: 'The address is on the list (HTML, no script)', content: HTML })
  @ApiResponse(NOT_A_LINK)
  async confirm(@Param() path: UnsubscribePathDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<string> {
    try {
      return html(res, 200, donePage((await this.unsubscribe.execute(path.token)).email));
    } catch (error) {
      return refused(error, req, res);
    }
  }
}

/** An invalid link: a page for a browser, the error body for anything else. */
function refused(error: unknown, req: Request, res: Response): string {
  if (!(error instanceof UnsubscribeLinkInvalidError) || req.accepts(['application/json', 'text/html']) !== 'text/html') throw error;
  return html(res, 404, page('Link not valid', '<p>This unsubscribe link is not valid. Use the link from the email as it came.</p>'));
}

function html(res: Response, status: number, body: string): string {
  // Not kept by caches or indexed: the page names an address.
  res.status(status).type('html').set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' });
  return body;
}

function confirmationPage(email: string): string {
  return page(
    'Unsubscribe',
    `<p>Send no more emails from this sender to <strong>${escapeHtml(email)}</strong>?</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
  );
}

function donePage(email: string): string {
  return page(
    'Unsubscribed',
    `<p><strong>${escapeHtml(email)}</strong> will get no more emails from this sender.</p>\n<p>You can close this page.</p>`,
  );
}

/** A whole page with no script, no style and nothing loaded from anywhere: the CSP allows it as it is. */
function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
</head>
<body>
<main>
<h1>${title}</h1>
${content}
</main>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
