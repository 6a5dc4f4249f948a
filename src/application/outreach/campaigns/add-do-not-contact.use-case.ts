import { Injectable } from '@nestjs/common';
import { type DoNotContactEntry, doNotContactValue } from '../../../domain/outreach/do-not-contact';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';

@Injectable()
export class AddDoNotContactUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
  ) {}

  /** Idempotent: a value already listed (in any spelling of it) returns the existing entry. */
  execute(input: { userId: string; value: string }): Promise<DoNotContactEntry> {
    return this.campaigns.addDoNotContact(input.userId, doNotContactValue(input.value), this.clock.now());
  }
}
