import { Controller, Delete, Get, HttpCode, Param, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OAuthGrants } from '../../../application/identity/oauth/oauth-grants';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { UserPathDto } from '../todo/task.dto';
import { OAuthGrantPathDto, OAuthGrantResponseDto } from './oauth.dto';
import { RateLimit } from '../shared/rate-limit';

/** Connected apps: the MCP clients a person allowed, and disconnecting one. A session only (no scope). */
@ApiTags('oauth')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/oauth/grants')
export class OAuthGrantsController {
  constructor(private readonly grants: OAuthGrants) {}

  @Get()
  @ApiOperation({
    operationId: 'listOAuthGrants',
    summary: 'The apps the user connected over OAuth, newest first, with their scopes and last use',
    description: 'Live grants only: a disconnected app is gone from the list. The client’s name is its own, unverified.',
  })
  @ApiOkResponse({ type: [OAuthGrantResponseDto], description: 'The live grants' })
  async list(@Param() path: UserPathDto): Promise<OAuthGrantResponseDto[]> {
    return (await this.grants.list(path.userId)).map((grant) => OAuthGrantResponseDto.of(grant));
  }

  @Delete(':grantId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeOAuthGrant',
    summary: 'Disconnect an app: its access and refresh tokens stop working at their next use',
    description: 'Audited. The app must ask the person again to get back in.',
  })
  @ApiNoContentResponse({ description: 'Disconnected' })
  @ApiErrors({ status: 404, description: 'OAUTH.GRANT_NOT_FOUND: no such live grant of the user’s' })
  async revoke(@Param() path: OAuthGrantPathDto): Promise<void> {
    await this.grants.revokeByPerson(path.userId, path.grantId);
  }
}
