import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../domain/shared/domain-error';
import { CampaignRepository } from '../ports/campaign-repository.port';

export class DoNotContactEntryNotFoundError extends DomainError {
  readonly code = 'OUTREACH.DO_NOT_CONTACT_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Do-not-contact entry was not found');
  }
}

@Injectable()
export class RemoveDoNotContactUseCase {
  constructor(private readonly campaigns: CampaignRepository) {}

  async execute(input: { userId: string; entryId: string }): Promise<void> {
    if (!(await this.campaigns.removeDoNotContact(input.userId, input.entryId))) throw new DoNotContactEntryNotFoundError();
  }
}
