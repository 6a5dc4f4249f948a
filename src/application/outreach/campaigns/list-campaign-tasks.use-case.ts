import { Injectable } from '@nestjs/common';
import type { Page } from '../../shared/page';
import { CampaignRepository, type TaskView } from '../ports/campaign-repository.port';
import { type CampaignRef, ownCampaign } from './own-campaign';

@Injectable()
export class ListCampaignTasksUseCase {
  constructor(private readonly campaigns: CampaignRepository) {}

  /** In import order of the leads, each lead's tasks in step order. */
  async execute(input: CampaignRef & { limit: number; cursor: string | null }): Promise<Page<TaskView>> {
    const campaign = await ownCampaign(this.campaigns, input);
    return this.campaigns.listTasks(campaign.id, input.limit, input.cursor);
  }
}
