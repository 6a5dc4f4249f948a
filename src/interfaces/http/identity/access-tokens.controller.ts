import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PersonalAccessTokens } from '../../../application/identity/personal-access-tokens';
import { Clock } from '../../../application/shared/ports/clock.port';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { UserPathDto } from '../todo/task.dto';
import { AccessTokenDto, AccessTokenPathDto, CreatedAccessTokenDto, CreateAccessTokenRequestDto } from './access-token.dto';
import { RateLimit } from '../shared/rate-limit';

/**
 * A person's personal access tokens. Only a signed-in session manages them (no RequiredScope):
 * a token cannot mint or revoke tokens, so a leaked one cannot entrench itself.
 */
@ApiTags('access-tokens')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/tokens')
export class AccessTokensController {
  constructor(
    private readonly tokens: PersonalAccessTokens,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listAccessTokens',
    summary: "The user's personal access tokens, newest first",
    description: 'Active, expired and revoked ones, with when and from which address each was last used. Never a secret.',
  })
  @ApiOkResponse({ type: [AccessTokenDto], description: 'The tokens, without their secrets' })
  async list(@Param() path: UserPathDto): Promise<AccessTokenDto[]> {
    const now = this.clock.now();
    return (await this.tokens.list(path.userId)).map((token) => AccessTokenDto.of(token, now));
  }

  @Post()
  @ApiOperation({
    operationId: 'createAccessToken',
    summary: 'Make a personal access token for a script or an MCP client',
    description:
      'The answer holds the secret, once: Bridle keeps only its hash. The token works on the REST API and on /mcp, ' +
      'for the scopes it holds, until it expires or is revoked. At most 50 active tokens per account. Audited.',
  })
  @ApiCreatedResponse({ type: CreatedAccessTokenDto, description: 'Made: the answer holds the secret, this once' })
  @ApiErrors(409, 413)
  async create(@Param() path: UserPathDto, @Body() body: CreateAccessTokenRequestDto): Promise<CreatedAccessTokenDto> {
    const { secret, token } = await this.tokens.create(path.userId, body);
    return { ...AccessTokenDto.of(token, this.clock.now()), token: secret };
  }

  @Delete(':tokenId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeAccessToken',
    summary: 'Revoke a token',
    description: 'From its next request the token gets 401. Audited.',
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(404)
  async revoke(@Param() path: AccessTokenPathDto): Promise<void> {
    await this.tokens.revoke(path.userId, path.tokenId);
  }
}
