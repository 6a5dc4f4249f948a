import { Injectable } from '@nestjs/common';
import {
  type ApprovalChanges,
  type BriefChanges,
  type WeeklyLimitChanges,
  type Campaign,
  draftCampaign,
} from '../../../domain/outreach/campaign';
import type { ActionKind } from '../../../domain/outreach/outreach-task';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';

@Injectable()
export class CreateCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
  ) {}

  /** A new campaign is a draft: it runs once it has leads and is started. */
  execute(
    input: { userId: string; name: string; dailyLimits?: Partial<Record<ActionKind, number>> } & WeeklyLimitChanges &
      ApprovalChanges &
      BriefChanges,
  ): Promise<Campaign> {
    return this.campaigns.create(input.userId, draftCampaign(input), this.clock.now());
  }
}
