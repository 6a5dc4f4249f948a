import { Injectable } from '@nestjs/common';
import {
  type ApprovalChanges,
  type BriefChanges,
  type LimitRequest,
  type Campaign,
  renameOrRelimit,
} from '../../../domain/outreach/campaign';
import { Clock } from '../../shared/ports/clock.port';
import { OutreachChannels } from '../outreach-channels';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, changeCampaign } from './own-campaign';

@Injectable()
export class UpdateCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
    private readonly channels: OutreachChannels,
  ) {}

  /** Renames it or changes some of its limits; a new limit applies to today's count too. */
  execute(
    input: CampaignRef & {
      changes: { name?: string } & LimitRequest & ApprovalChanges & BriefChanges;
    },
  ): Promise<Campaign> {
    return changeCampaign(
      this.campaigns,
      input,
      () => this.clock.now(),
      (campaign) => renameOrRelimit(campaign, input.changes, this.channels.kinds()),
    );
  }
}
