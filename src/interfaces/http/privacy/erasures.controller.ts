import { Body, Controller, Delete, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ErasePersonalDataUseCase, type Eraser } from '../../../application/privacy/erase-personal-data.use-case';
import { AdminGuard } from '../admin/admin.guard';
import { BearerAuthGuard, CurrentPrincipal, OwnUserGuard } from '../guards/bearer-auth.guard';
import { RequiredScope } from '../guards/required-scope';
import { ApiErrors } from '../shared/api-errors.decorator';
import { RateLimit } from '../shared/rate-limit';
import { UserPathDto } from '../todo/task.dto';
import { AccountPathDto, AdminLeadPathDto, EraseEmailRequestDto, ErasureCountsDto, LeadPathDto } from './erasure.dto';

const eraser = (principal: Principal): Eraser => ({ actorId: principal.userId, admin: principal.role === 'admin' });

/**
 * A person erases their account, or a lead of their campaigns (docs/record-keeping.md). Each
 * erasure is audited (tool `erasure.*`), without the data.
 */
@ApiTags('erasure')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId')
export class ErasuresController {
  constructor(private readonly erase: ErasePersonalDataUseCase) {}

  /** A signed-in session only (no scope): no token can delete its account. */
  @Delete()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteAccount',
    summary: 'Delete your account and erase your data',
    description:
      'Deletes the account with its conversations, campaigns, leads, tasks and tokens, and erases its data from the audit log ' +
      '(the rows and their links stay, marked erased), decision logs and other records. The audit chain still verifies. Audited.',
  })
  @ApiOkResponse({ type: ErasureCountsDto, description: 'Erased: how many rows, per place' })
  async deleteAccount(@Param() path: UserPathDto, @CurrentPrincipal() principal: Principal): Promise<ErasureCountsDto> {
    return ErasureCountsDto.of(await this.erase.eraseAccount({ actorId: principal.userId, admin: false }, path.userId));
  }

  @Delete('campaigns/:campaignId/leads/:leadId')
  @RequiredScope('campaigns:read', 'campaigns:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteLead',
    summary: 'Erase a lead of one of your campaigns',
    description: 'Deletes the lead with its tasks, actions and drafts, and erases its data everywhere else. Audited.',
  })
  @ApiOkResponse({ type: ErasureCountsDto, description: 'Erased: how many rows, per place' })
  @ApiErrors(404)
  async eraseLead(@Param() path: LeadPathDto, @CurrentPrincipal() principal: Principal): Promise<ErasureCountsDto> {
    return ErasureCountsDto.of(await this.erase.eraseLead({ actorId: principal.userId, admin: false }, path.campaignId, path.leadId));
  }

  @Post('erasures/email')
  @RequiredScope('campaigns:read', 'campaigns:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteLeadsByEmail',
    summary: 'Erase every lead of your campaigns with this email address, and every mention of it',
    description: 'The address is compared in canonical form. The audit row of the erasure does not hold it.',
  })
  @ApiOkResponse({ type: ErasureCountsDto, description: 'Erased: how many rows, per place (zero leads is not an error)' })
  async eraseEmail(
    @Param() _path: UserPathDto,
    @Body() body: EraseEmailRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ErasureCountsDto> {
    return ErasureCountsDto.of(await this.erase.eraseEmail({ actorId: principal.userId, admin: false }, body.email));
  }
}

/** Admins erase any account, any lead, or an address across every campaign. Signed-in sessions only. */
@ApiTags('admin')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/erasures')
export class AdminErasuresController {
  constructor(private readonly erase: ErasePersonalDataUseCase) {}

  @Delete('accounts/:userId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteAnyAccount',
    summary: 'Delete an account and erase its data',
    description: 'As DELETE /api/{userId}, for any account. Audited (erasure.account), without the data.',
  })
  @ApiOkResponse({ type: ErasureCountsDto, description: 'Erased: how many rows, per place' })
  @ApiErrors(404)
  async eraseAccount(@Param() path: AccountPathDto, @CurrentPrincipal() admin: Principal): Promise<ErasureCountsDto> {
    return ErasureCountsDto.of(await this.erase.eraseAccount(eraser(admin), path.userId));
  }

  @Delete('leads/:campaignId/:leadId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteAnyLead',
    summary: 'Erase a lead of any campaign',
    description: 'As DELETE /api/{userId}/campaigns/{campaignId}/leads/{leadId}, for any campaign. Audited (erasure.lead).',
  })
  @ApiOkResponse({ type: ErasureCountsDto, description: 'Erased: how many rows, per place' })
  @ApiErrors(404)
  async eraseLead(@Param() path: AdminLeadPathDto, @CurrentPrincipal() admin: Principal): Promise<ErasureCountsDto> {
    return ErasureCountsDto.of(await this.erase.eraseLead(eraser(admin), path.campaignId, path.leadId));
  }

  @Post('email')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteAnyLeadsByEmail',
    summary: 'Erase every lead with this email address, in every campaign, and every mention of it',
    description: 'Compared in canonical form, across every campaign. Audited (erasure.email); the row does not hold the address.',
  })
  @ApiOkResponse({ type: ErasureCountsDto, description: 'Erased: how many rows, per place' })
  async eraseEmail(@Body() body: EraseEmailRequestDto, @CurrentPrincipal() admin: Principal): Promise<ErasureCountsDto> {
    return ErasureCountsDto.of(await this.erase.eraseEmail(eraser(admin), body.email));
  }
}
