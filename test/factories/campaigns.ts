import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { draftCampaign, type CampaignDraft } from '../../src/domain/outreach/campaign';
import { draftLead, type LeadDraft } from '../../src/domain/outreach/lead';
import { PostgresCampaignRepository } from '../../src/infrastructure/persistence/repositories/postgres-campaign.repository';

/**
 * Campaigns and leads for a repository. Over HTTP, `startedCampaign` and `leads`
 * (test/support/outreach.ts) make them as a person would.
 */

/** What a campaign request may set besides its name. */
export type CampaignInput = Parameters<typeof draftCampaign>[0];

/** A campaign draft named "Campaign", with the default limits, approval, brief and templates, or what `overrides` sets. */
export function aCampaignDraft(overrides: Partial<CampaignInput> = {}): CampaignDraft {
  return draftCampaign({ name: 'Campaign', ...overrides });
}

/** A short random tag that keeps profile URLs apart between campaigns and tests. */
export function uniqueSlug(): string {
  return randomBytes(4).toString('hex');
}

/** A lead draft at `https://www.linkedin.com/in/<slug>/`, named `Lead <slug>`, with no email unless given. */
export function aLead(slug = uniqueSlug(), overrides: { name?: string; email?: string | null } = {}): LeadDraft {
  return draftLead({ name: `Lead ${slug}`, linkedinUrl: `https://www.linkedin.com/in/${slug}/`, email: null, ...overrides });
}

/**
 * A stored campaign of `ownerId`, created at `now` with its leads (imported at `leadsAt`, `now`
 * unless given), and started: its tasks are due from the leads' import. @returns its id.
 */
export async function addActiveCampaign(
  database: DataSource,
  ownerId: string,
  options: { now: Date; leads: readonly LeadDraft[]; leadsAt?: Date; campaign?: Partial<CampaignInput> },
): Promise<string> {
  const campaigns = new PostgresCampaignRepository(database);
  const campaign = await campaigns.create(ownerId, aCampaignDraft(options.campaign), options.now);
  await campaigns.addLeads(campaign.id, options.leads, options.leadsAt ?? options.now);
  await campaigns.update(ownerId, campaign.id, { status: 'active' }, options.now, 'draft');
  return campaign.id;
}
