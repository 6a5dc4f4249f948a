import { Injectable } from '@nestjs/common';
import {
  type ApprovalChanges,
  type BriefChanges,
  type LimitRequest,
  type Campaign,
  draftCampaign,
} from '../../../domain/outreach/campaign';
import { Clock } from '../../shared/ports/clock.port';
import { OutreachChannels } from '../outreach-channels';
import { CampaignRepository } from '../ports/campaign-repository.port';

@Injectable()
export class CreateCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
    private readonly channels: OutreachChannels,
  ) {}

  /** A new campaign is a draft: it runs once it has leads and is started. */
  execute(input: { userId: string; name: string } & LimitRequest & ApprovalChanges & BriefChanges): Promise<Campaign> {
    return this.campaigns.create(input.userId, draftCampaign(input, this.channels.kinds()), this.clock.now());
  }
}
