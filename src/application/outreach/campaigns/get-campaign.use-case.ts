import { Injectable } from '@nestjs/common';
import type { Campaign } from '../../../domain/outreach/campaign';
import { ACTION_KINDS, type ActionKind } from '../../../domain/outreach/outreach-task';
import { nextUtcMidnight, type QuotaUse, remainingOf, type ScopeUse, utcDay, weekFreesAt, weekStart } from '../../../domain/outreach/quota';
import { Clock } from '../../shared/ports/clock.port';
import { ownerLimitsOf, OutreachSettings } from '../outreach-settings';
import { type CampaignCounts, CampaignRepository } from '../ports/campaign-repository.port';
import { type CampaignRef, ownCampaign } from './own-campaign';

/** One scope's use: today's against its daily limit, and the rolling week's against its weekly limit. */
export interface ScopeUsage extends QuotaUse {
  readonly week: {
    readonly used: number;
    /** null: no weekly limit in this scope. */
    readonly limit: number | null;
    /** When the week is at its limit: when its next slot frees; null while it has room. */
    readonly freesAt: Date | null;
  };
}

export interface KindUsage {
  readonly campaign: ScopeUsage;
  readonly owner: ScopeUsage;
  /** What the campaign may still do today: the smallest room of any limit, daily or weekly, in either scope. */
  readonly remaining: number;
}

export interface CampaignUsage {
  /** The UTC day the counts are for. */
  readonly day: string;
  readonly resetsAt: Date;
  /** The first UTC day the rolling week counts (6 days before `day`). */
  readonly weekFrom: string;
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
      this.campaigns.quota(campaign, ownerLimitsOf(this.settings), day),
    ]);
    const scope = (use: ScopeUse): ScopeUsage => ({
      used: use.used,
      limit: use.limit,
      week: {
        used: use.week.used,
        limit: use.week.limit,
        freesAt: use.week.limit !== null && use.week.used >= use.week.limit ? weekFreesAt(use.week, now) : null,
      },
    });
    const kinds = Object.fromEntries(
      ACTION_KINDS.map((kind) => [
        kind,
        { campaign: scope(quota[kind].campaign), owner: scope(quota[kind].owner), remaining: remainingOf(quota, kind) },
      ]),
    ) as Record<ActionKind, KindUsage>;
    return { campaign, counts, usage: { day, resetsAt: nextUtcMidnight(now), weekFrom: weekStart(day), kinds } };
  }
}
