import { Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RunCampaignCycleUseCase } from '../../../application/outreach/run-campaign-cycle.use-case';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { CampaignCyclePathDto, CycleOutcomeDto } from './cycle.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

@ApiTags('campaigns')
@ApiErrors(400, 404, {
  status: 409,
  description: 'OUTREACH.CAMPAIGN_STATE: the campaign is not active; only an active campaign runs cycles',
})
@RequiredScope('campaigns:read', 'campaigns:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/campaigns/:campaignId/cycles')
export class OutreachCyclesController {
  constructor(private readonly runCycle: RunCampaignCycleUseCase) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'runCampaignCycle',
    summary: 'Run one cycle of an active campaign now',
    description:
      'Claims its most overdue task (or, when none is left, completes the campaign), asks the model for ONE action, ' +
      'validates it, reserves quota and writes the audit row, acts, verifies. Answers what each step did.',
  })
  @ApiOkResponse({ type: CycleOutcomeDto, description: 'What each step of the cycle did' })
  async run(@Param() path: CampaignCyclePathDto): Promise<CycleOutcomeDto> {
    return CycleOutcomeDto.of(await this.runCycle.execute({ userId: path.userId, campaignId: path.campaignId }));
  }
}
