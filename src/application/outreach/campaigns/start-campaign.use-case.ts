import { Injectable } from '@nestjs/common';
import { type Campaign, CampaignStateError, startCampaign } from '../../../domain/outreach/campaign';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, changeCampaign } from './own-campaign';

@Injectable()
export class StartCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * draft or paused → active; starting an active campaign changes nothing. A campaign with
   * no lead is refused: the worker would find nothing to do and complete it at once, and a
   * completed campaign takes no more leads.
   */
  execute(ref: CampaignRef): Promise<Campaign> {
    return changeCampaign(
      this.campaigns,
      ref,
      () => this.clock.now(),
      async (campaign) => {
        const status = startCampaign(campaign);
        if (status === campaign.status) return null;
        if ((await this.campaigns.counts(campaign.id)).leads === 0) {
          throw new CampaignStateError('The campaign has no leads; import leads before starting it');
        }
        return { status };
      },
    );
  }
}
