import { Injectable } from '@nestjs/common';
import type { DoNotContactEntry } from '../../../domain/outreach/do-not-contact';
import { CampaignRepository } from '../ports/campaign-repository.port';

@Injectable()
export class ListDoNotContactUseCase {
  constructor(private readonly campaigns: CampaignRepository) {}

  /** Newest first. */
  execute(input: { userId: string }): Promise<readonly DoNotContactEntry[]> {
    return this.campaigns.listDoNotContact(input.userId);
  }
}
