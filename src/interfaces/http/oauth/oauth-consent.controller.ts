import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedPrincipal } from '../../../application/identity/ports/access-token-service.port';
import { OAuthAuthorization } from '../../../application/identity/oauth/oauth-authorization';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import {
  ApproveAuthorizationRequestDto,
  AuthorizationAnswerDto,
  AuthorizationRequestPathDto,
  AuthorizationRequestResponseDto,
} from './oauth.dto';
import { RateLimit } from '../shared/rate-limit';

const GONE = {
  status: 404,
  description:
    'OAUTH.REQUEST_NOT_FOUND: no such request; OAUTH.REQUEST_EXPIRED: its 10 minutes ran out; OAUTH.REQUEST_ANSWERED: ' +
    'it was approved or denied already. The person starts again from the app',
} as const;

/**
 * The consent page's API: what an MCP client asks for at /authorize waits here for the
 * signed-in person, who approves or denies it. A session only (no scope): no token may
 * consent on the person's behalf.
 */
@ApiTags('oauth')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard)
@Controller('oauth/requests/:requestId')
export class OAuthConsentController {
  constructor(private readonly authorization: OAuthAuthorization) {}

  @Get()
  @ApiOperation({
    operationId: 'getAuthorizationRequest',
    summary: 'What an app asks for: its name, where the answer goes, the scopes',
    description: 'The client’s name and home page are its own words, unverified; the redirect host is where the code would go.',
  })
  @ApiOkResponse({ type: AuthorizationRequestResponseDto, description: 'The request, waiting for an answer' })
  @ApiErrors(GONE)
  async get(@Param() path: AuthorizationRequestPathDto): Promise<AuthorizationRequestResponseDto> {
    return AuthorizationRequestResponseDto.of(await this.authorization.view(path.requestId));
  }

  @Post('approve')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'approveAuthorizationRequest',
    summary: 'Allow the app: the grant holds the scopes, and the browser goes back to the app with a code',
    description:
      'Creates the person’s grant to the client, or widens it to these scopes, and answers where the browser goes: the ' +
      'redirect URI with a code the client exchanges once, within a minute, with its PKCE verifier. Audited.',
  })
  @ApiOkResponse({ type: AuthorizationAnswerDto, description: 'Allowed: where the browser goes, with the code' })
  @ApiErrors(GONE, { status: 400, description: 'OAUTH.CONSENT_SCOPES_INVALID: scopes the app did not ask for, or none' })
  async approve(
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Param() path: AuthorizationRequestPathDto,
    @Body() body: ApproveAuthorizationRequestDto,
  ): Promise<AuthorizationAnswerDto> {
    return { redirectTo: await this.authorization.approve(principal.userId, path.requestId, body.scopes) };
  }

  @Post('deny')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'denyAuthorizationRequest',
    summary: 'Refuse the app: the browser goes back to it with error=access_denied',
    description: 'Nothing is granted and no code is issued; the request cannot be answered again.',
  })
  @ApiOkResponse({ type: AuthorizationAnswerDto, description: 'Refused: where the browser goes, with error=access_denied' })
  @ApiErrors(GONE)
  async deny(
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Param() path: AuthorizationRequestPathDto,
  ): Promise<AuthorizationAnswerDto> {
    return { redirectTo: await this.authorization.deny(principal.userId, path.requestId) };
  }
}
