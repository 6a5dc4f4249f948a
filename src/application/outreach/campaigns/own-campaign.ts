import { type Campaign, CampaignNotFoundError, CampaignStateError } from '../../../domain/outreach/campaign';
import type { CampaignChanges, CampaignRepository } from '../ports/campaign-repository.port';

/** Addresses one campaign of one user; another user's campaign is simply not found. */
export interface CampaignRef {
  readonly userId: string;
  readonly campaignId: string;
}

/** A decision is taken again on fresh state when the campaign changed under it, this many times at most. */
export const CHANGE_ATTEMPTS = 3;

export async function ownCampaign(campaigns: CampaignRepository, ref: CampaignRef): Promise<Campaign> {
  const campaign = await campaigns.get(ref.userId, ref.campaignId);
  if (!campaign) throw new CampaignNotFoundError();
  return campaign;
}

/**
 * Reads the campaign, lets `decide` choose the changes (null: nothing to change) and writes
 * them only if the status is still the one `decide` saw; when it is not (a worker completed
 * the campaign meanwhile), decides again on the fresh campaign.
 */
export async function changeCampaign(
  campaigns: CampaignRepository,
  ref: CampaignRef,
  now: () => Date,
  decide: (campaign: Campaign) => CampaignChanges | null | Promise<CampaignChanges | null>,
): Promise<Campaign> {
  for (let attempt = 1; ; attempt++) {
    const campaign = await ownCampaign(campaigns, ref);
    const changes = await decide(campaign);
    if (changes === null) return campaign;
    const changed = await campaigns.update(ref.userId, ref.campaignId, changes, now(), campaign.status);
    if (changed) return changed;
    if (attempt >= CHANGE_ATTEMPTS) throw new CampaignStateError('The campaign kept changing meanwhile; try again');
  }
}
