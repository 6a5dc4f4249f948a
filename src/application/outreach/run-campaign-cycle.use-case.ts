import { Injectable } from '@nestjs/common';
import { CampaignStateError } from '../../domain/outreach/campaign';
import { ownCampaign } from './campaigns/own-campaign';
import { IdGenerator } from '../shared/ports/id-generator.port';
import type { CycleOutcome } from './cycle-outcome';
import { CampaignRepository } from './ports/campaign-repository.port';
import { RunOutreachCycleUseCase } from './run-outreach-cycle.use-case';

/** One cycle of one of the user's campaigns, now (`POST /campaigns/:id/cycles`). */
@Injectable()
export class RunCampaignCycleUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly cycle: RunOutreachCycleUseCase,
    private readonly ids: IdGenerator,
  ) {}

  async execute(input: { userId: string; campaignId: string }): Promise<CycleOutcome> {
    const campaign = await ownCampaign(this.campaigns, input);
    if (campaign.status !== 'active') {
      throw new CampaignStateError(`The campaign is ${campaign.status}; only an active campaign runs cycles`);
    }
    return this.cycle.run({ workerId: `http-${this.ids.next()}`, campaignId: campaign.id });
  }
}
