import type { SentMessage } from '../../../domain/outreach/actions';
import type { CampaignBrief, MessageTemplates } from '../../../domain/outreach/brief';
import type { Campaign, CampaignDraft, CampaignStatus, DailyLimits } from '../../../domain/outreach/campaign';
import type { DoNotContactEntry, DoNotContactKind } from '../../../domain/outreach/do-not-contact';
import type { Lead, LeadDraft } from '../../../domain/outreach/lead';
import type { OutreachTask } from '../../../domain/outreach/outreach-task';
import type { OwnerLimits, QuotaState, WeeklyLimits } from '../../../domain/outreach/quota';
import type { ApprovalPolicy } from '../../../domain/outreach/review';
import type { Page } from '../../shared/page';

export interface CampaignChanges {
  readonly name?: string;
  readonly dailyLimits?: DailyLimits;
  readonly weeklyLimits?: WeeklyLimits;
  readonly approval?: ApprovalPolicy;
  readonly brief?: CampaignBrief;
  readonly templates?: MessageTemplates;
  readonly status?: CampaignStatus;
}

export interface CampaignCounts {
  readonly leads: number;
  readonly tasks: Readonly<Record<OutreachTask['status'], number>>;
}

/** A task as its owner reads it: `output` without `sent`, which is given on its own. */
export type TaskView = OutreachTask & {
  readonly leadName: string;
  readonly leadLinkedinUrl: string;
  /** What a message or email task handed to its channel (kept in its output); null for any other task, or before it did. */
  readonly sent: SentMessage | null;
};

export type CampaignDeletion =
  | 'deleted'
  | 'not_found'
  /** The campaign's status is no longer the one the caller decided on. */
  | 'status_changed'
  /** An action of the campaign is in flight: deleting it now would lose its outcome. */
  | 'action_in_flight';

/**
 * Campaigns, their leads and tasks, and the owner's do-not-contact list. Methods that take
 * an owner id are scoped to it; the others take a campaign id resolved through get().
 */
export abstract class CampaignRepository {
  abstract create(ownerId: string, draft: CampaignDraft, now: Date): Promise<Campaign>;
  abstract get(ownerId: string, campaignId: string): Promise<Campaign | null>;
  /** Newest first. */
  abstract list(ownerId: string, limit: number, cursor: string | null): Promise<Page<Campaign>>;
  /**
   * Changes the campaign only while its status is still `expectedStatus`, the one the
   * caller decided on (a worker may complete it meanwhile).
   * @returns the changed campaign, or null when the owner has no such campaign or its status changed.
   */
  abstract update(
    ownerId: string,
    campaignId: string,
    changes: CampaignChanges,
    now: Date,
    expectedStatus: CampaignStatus,
  ): Promise<Campaign | null>;
  /**
   * Deletes the campaign with its leads and tasks, only while its status is still
   * `expectedStatus` and none of its actions is in flight; its audit rows and the quota
   * it used stay.
   */
  abstract delete(ownerId: string, campaignId: string, expectedStatus: CampaignStatus): Promise<CampaignDeletion>;
  abstract counts(campaignId: string): Promise<CampaignCounts>;
  /**
   * Adds leads not already in the campaign (by profile URL) with their tasks, in one
   * transaction that holds the campaign row (FOR NO KEY UPDATE) until it commits: a
   * completion that locks the row before counting open tasks sees the new ones.
   * @returns the leads added, and the profile URLs that were already there.
   * @throws CampaignNotFoundError, or CampaignStateError for a completed campaign.
   */
  abstract addLeads(
    campaignId: string,
    leads: readonly LeadDraft[],
    now: Date,
    /** Each new lead's task types, in order (an email step is skipped for a lead without email). */
    steps?: readonly string[],
  ): Promise<{ readonly added: readonly Lead[]; readonly existing: readonly string[] }>;
  /** Tasks in lead order, then step. */
  abstract listTasks(campaignId: string, limit: number, cursor: string | null): Promise<Page<TaskView>>;
  /** Today's and the rolling week's use of each kind against the campaign's and the owner's limits. */
  abstract quota(campaign: Campaign, ownerLimits: OwnerLimits, day: string): Promise<QuotaState>;

  abstract listDoNotContact(ownerId: string): Promise<readonly DoNotContactEntry[]>;
  /** Idempotent: adding a value already listed returns the existing entry. */
  abstract addDoNotContact(ownerId: string, entry: { kind: DoNotContactKind; value: string }, now: Date): Promise<DoNotContactEntry>;
  abstract removeDoNotContact(ownerId: string, entryId: string): Promise<boolean>;
}
