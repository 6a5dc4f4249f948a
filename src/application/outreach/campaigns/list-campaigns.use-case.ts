import { Injectable } from '@nestjs/common';
import type { Campaign } from '../../../domain/outreach/campaign';
import type { Page } from '../../shared/page';
import { CampaignRepository } from '../ports/campaign-repository.port';

@Injectable()
export class ListCampaignsUseCase {
  constructor(private readonly campaigns: CampaignRepository) {}

  /** Newest first. */
  execute(input: { userId: string; limit: number; cursor: string | null }): Promise<Page<Campaign>> {
    return this.campaigns.list(input.userId, input.limit, input.cursor);
  }
}
