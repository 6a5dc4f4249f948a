import { Injectable } from '@nestjs/common';
import { type Campaign, pauseCampaign } from '../../../domain/outreach/campaign';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, changeCampaign } from './own-campaign';

@Injectable()
export class PauseCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * active → paused: no new task is claimed. An action a worker already began still
   * finishes. Pausing a draft or paused campaign changes nothing.
   */
  execute(ref: CampaignRef): Promise<Campaign> {
    return changeCampaign(
      this.campaigns,
      ref,
      () => this.clock.now(),
      (campaign) => {
        const status = pauseCampaign(campaign);
        return status === campaign.status ? null : { status };
      },
    );
  }
}
