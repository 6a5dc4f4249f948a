import { Injectable } from '@nestjs/common';
import { CampaignNotFoundError, CampaignStateError } from '../../../domain/outreach/campaign';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, CHANGE_ATTEMPTS, ownCampaign } from './own-campaign';

@Injectable()
export class DeleteCampaignUseCase {
  constructor(private readonly campaigns: CampaignRepository) {}

  /**
   * Deletes the campaign with its leads and tasks. An active campaign is refused (pause it
   * first), and so is one with an action in flight, whose outcome would otherwise be lost.
   */
  async execute(ref: CampaignRef): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const campaign = await ownCampaign(this.campaigns, ref);
      if (campaign.status === 'active') {
        throw new CampaignStateError('The campaign is active; pause it before deleting it');
      }
      switch (await this.campaigns.delete(ref.userId, ref.campaignId, campaign.status)) {
        case 'deleted':
          return;
        case 'not_found':
          throw new CampaignNotFoundError();
        case 'action_in_flight':
          throw new CampaignStateError('An action of this campaign is still in flight; try again in a minute');
        case 'status_changed':
          if (attempt >= CHANGE_ATTEMPTS) throw new CampaignStateError('The campaign kept changing meanwhile; try again');
      }
    }
  }
}
