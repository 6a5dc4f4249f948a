import { Injectable } from '@nestjs/common';
import { DoNotContactEntryNotFoundError } from '../../../domain/outreach/do-not-contact';
import { CampaignRepository } from '../ports/campaign-repository.port';

@Injectable()
export class RemoveDoNotContactUseCase {
  constructor(private readonly campaigns: CampaignRepository) {}

  async execute(input: { userId: string; entryId: string }): Promise<void> {
    if (!(await this.campaigns.removeDoNotContact(input.userId, input.entryId))) throw new DoNotContactEntryNotFoundError();
  }
}
