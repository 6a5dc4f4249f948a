import { Injectable } from '@nestjs/common';
import {
  type ApprovalChanges,
  type BriefChanges,
  type WeeklyLimitChanges,
  type Campaign,
  renameOrRelimit,
} from '../../../domain/outreach/campaign';
import type { ActionKind } from '../../../domain/outreach/outreach-task';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, changeCampaign } from './own-campaign';

@Injectable()
export class UpdateCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
  ) {}

  /** Renames it or changes some of its daily limits; a new limit applies to today's count too. */
  execute(
    input: CampaignRef & {
      changes: { name?: string; dailyLimits?: Partial<Record<ActionKind, number>> } & WeeklyLimitChanges & ApprovalChanges & BriefChanges;
    },
  ): Promise<Campaign> {
    return changeCampaign(
      this.campaigns,
      input,
      () => this.clock.now(),
      (campaign) => renameOrRelimit(campaign, input.changes),
    );
  }
}
