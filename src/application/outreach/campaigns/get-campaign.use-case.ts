import { Injectable } from '@nestjs/common';
import type { Campaign } from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind } from '../../../domain/outreach/outreach-task';
import { nextUtcMidnight, type QuotaUse, remainingOf, utcDay } from '../../../domain/outreach/quota';
import { Clock } from '../../shared/ports/clock.port';
import { OutreachSettings } from '../outreach-settings';
import { type CampaignCounts, CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, ownCampaign } from './own-campaign';

export interface KindUsage {
  readonly campaign: QuotaUse;
  readonly owner: QuotaUse;
  /** What the campaign may still do today: the smaller room of the two scopes. */
  readonly remaining: number;
}

export interface CampaignUsage {
  /** The UTC day the counts are for. */
  readonly day: string;
  readonly resetsAt: Date;
  readonly kinds: Readonly<Record<ActionKind, KindUsage>>;
}

export interface CampaignDetails {
  readonly campaign: Campaign;
  readonly counts: CampaignCounts;
  readonly usage: CampaignUsage;
}

@Injectable()
export class GetCampaignUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly settings: OutreachSettings,
    private readonly clock: Clock,
  ) {}

  async execute(ref: CampaignRef): Promise<CampaignDetails> {
    const campaign = await ownCampaign(this.campaigns, ref);
    const now = this.clock.now();
    const day = utcDay(now);
    const [counts, quota] = await Promise.all([
      this.campaigns.counts(campaign.id),
      this.campaigns.quota(campaign, this.settings.ownerDailyLimits, day),
    ]);
    const kinds = Object.fromEntries(ACTION_KINDS.map((kind) => [kind, { ...quota[kind], remaining: remainingOf(quota, kind) }])) as Record<
      ActionKind,
      KindUsage
    >;
    return { campaign, counts, usage: { day, resetsAt: nextUtcMidnight(now), kinds } };
  }
}
