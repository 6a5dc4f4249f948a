import { DomainError, DomainValidationError } from '../shared/domain-error';
import { cleanText, labelProblem } from '../shared/untrusted-text-normalisation';
import { briefOf, type BriefResult, type CampaignBrief, EMPTY_BRIEF, EMPTY_TEMPLATES, type MessageTemplates, templatesOf } from './brief';
import { ACTION_KINDS, type ActionKind } from './outreach-task';
import type { WeeklyLimits } from './quota';
import { type ApprovalPolicy, approvalPolicyOf, DEFAULT_APPROVAL_POLICY } from './approval';

export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_NAME_MAX_LENGTH = 120;
/** Per campaign, per UTC day, per action kind, unless the campaign says otherwise. */
export const DEFAULT_DAILY_LIMIT = 50;
export const DAILY_LIMIT_MAX = 10_000;
/**
 * A campaign's own limit per rolling week (its UTC day and the 6 before it), per kind: none
 * (null) unless set. The owner's weekly limits (configuration) apply to every campaign.
 */
export const WEEKLY_LIMIT_MAX = 7 * DAILY_LIMIT_MAX;

export type DailyLimits = Readonly<Record<ActionKind, number>>;

export interface Campaign {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly status: CampaignStatus;
  readonly dailyLimits: DailyLimits;
  /** Per rolling week (domain/outreach/quota.ts); null: none of its own. */
  readonly weeklyLimits: WeeklyLimits;
  /** Review before send (domain/outreach/review.ts). */
  readonly approval: ApprovalPolicy;
  /** What the messages say and how, and their templates (domain/outreach/brief.ts). */
  readonly brief: CampaignBrief;
  readonly templates: MessageTemplates;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly completedAt: Date | null;
}

export interface CampaignDraft {
  readonly name: string;
  readonly dailyLimits: DailyLimits;
  readonly weeklyLimits: WeeklyLimits;
  readonly approval: ApprovalPolicy;
  readonly brief: CampaignBrief;
  readonly templates: MessageTemplates;
}

/** A request's weekly limits: a number sets a kind's, null removes it, a kind not given is left as it is. */
export interface WeeklyLimitChanges {
  readonly weeklyLimits?: Partial<Record<ActionKind, number | null>>;
}

/** A request's approval fields: approvalMode, approvalFirstN. */
export interface ApprovalChanges {
  readonly approvalMode?: unknown;
  readonly approvalFirstN?: unknown;
}

/** A request's brief and templates, checked by briefOf and templatesOf: a field given replaces, null clears. */
export interface BriefChanges {
  readonly brief?: unknown;
  readonly templates?: unknown;
}

export class InvalidCampaignError extends DomainValidationError {
  readonly code = 'OUTREACH.INVALID_CAMPAIGN';
}

export class CampaignNotFoundError extends DomainError {
  readonly code = 'OUTREACH.CAMPAIGN_NOT_FOUND';
  readonly kind = 'not_found' as const;
  constructor() {
    super('Campaign was not found');
  }
}

export class CampaignStateError extends DomainError {
  readonly code = 'OUTREACH.CAMPAIGN_STATE';
  readonly kind = 'conflict' as const;
}

export function draftCampaign(
  input: { name: string; dailyLimits?: Partial<Record<ActionKind, number>> } & WeeklyLimitChanges & ApprovalChanges & BriefChanges,
): CampaignDraft {
  return {
    name: validName(input.name),
    dailyLimits: validLimits(input.dailyLimits ?? {}, defaultLimits()),
    weeklyLimits: validWeeklyLimits(input.weeklyLimits ?? {}, NO_WEEKLY_LIMITS),
    approval: approvalOrThrow(approvalPolicyOf({ mode: input.approvalMode, firstN: input.approvalFirstN }, DEFAULT_APPROVAL_POLICY)),
    brief: checked(briefOf(input.brief, EMPTY_BRIEF)),
    templates: checked(templatesOf(input.templates, EMPTY_TEMPLATES)),
  };
}

export function renameOrRelimit(
  campaign: Campaign,
  changes: { name?: string; dailyLimits?: Partial<Record<ActionKind, number>> } & WeeklyLimitChanges & ApprovalChanges & BriefChanges,
): Pick<Campaign, 'name' | 'dailyLimits' | 'weeklyLimits' | 'approval' | 'brief' | 'templates'> {
  if (campaign.status === 'completed') throw new CampaignStateError('A completed campaign cannot be changed');
  return {
    name: changes.name === undefined ? campaign.name : validName(changes.name),
    dailyLimits: validLimits(changes.dailyLimits ?? {}, campaign.dailyLimits),
    weeklyLimits: validWeeklyLimits(changes.weeklyLimits ?? {}, campaign.weeklyLimits),
    approval: approvalOrThrow(approvalPolicyOf({ mode: changes.approvalMode, firstN: changes.approvalFirstN }, campaign.approval)),
    brief: checked(briefOf(changes.brief, campaign.brief)),
    templates: checked(templatesOf(changes.templates, campaign.templates)),
  };
}

/** draft or paused → active. */
export function startCampaign(campaign: Campaign): CampaignStatus {
  if (campaign.status === 'active') return 'active';
  if (campaign.status === 'completed') throw new CampaignStateError('A completed campaign cannot be started again');
  return 'active';
}

/** active → paused; pausing a draft or paused campaign changes nothing. */
export function pauseCampaign(campaign: Campaign): CampaignStatus {
  if (campaign.status === 'completed') throw new CampaignStateError('A completed campaign cannot be paused');
  return campaign.status === 'draft' ? 'draft' : 'paused';
}

/** The checked value, or the problem as a 400 naming its field. */
function checked<T>(result: BriefResult<T>): T {
  if (!result.ok) throw new InvalidCampaignError(result.problem.field, result.problem.message);
  return result.value;
}

/** The checked approval policy, or its problem as a 400 naming the field. */
function approvalOrThrow(result: ReturnType<typeof approvalPolicyOf>): ApprovalPolicy {
  if (!result.ok) throw new InvalidCampaignError(result.problem.field, result.problem.message);
  return result.value;
}

function defaultLimits(): DailyLimits {
  return Object.fromEntries(ACTION_KINDS.map((kind) => [kind, DEFAULT_DAILY_LIMIT])) as Record<ActionKind, number>;
}

function validName(raw: unknown): string {
  const name = typeof raw === 'string' ? cleanText(raw).trim() : '';
  if (name.length === 0 || name.length > CAMPAIGN_NAME_MAX_LENGTH) {
    throw new InvalidCampaignError('name', `name must be 1 to ${CAMPAIGN_NAME_MAX_LENGTH} characters long`);
  }
  // The owner types it, and it heads the planner's prompt and the console's lists: cleaned, and one line.
  const problem = labelProblem(name);
  if (problem) throw new InvalidCampaignError('name', `name ${problem}`);
  return name;
}

function validLimits(raw: Partial<Record<string, unknown>>, base: DailyLimits): DailyLimits {
  const limits: Record<ActionKind, number> = { ...base };
  for (const [kind, value] of Object.entries(raw)) {
    if (!(ACTION_KINDS as readonly string[]).includes(kind)) {
      throw new InvalidCampaignError(`dailyLimits.${kind}`, `dailyLimits accepts only ${ACTION_KINDS.join(', ')}`);
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > DAILY_LIMIT_MAX) {
      throw new InvalidCampaignError(`dailyLimits.${kind}`, `dailyLimits.${kind} must be a whole number from 0 to ${DAILY_LIMIT_MAX}`);
    }
    limits[kind as ActionKind] = value;
  }
  return limits;
}

const NO_WEEKLY_LIMITS: WeeklyLimits = { profile_lookup: null, linkedin_message: null, email: null };

function validWeeklyLimits(raw: Partial<Record<string, unknown>>, base: WeeklyLimits): WeeklyLimits {
  const limits: Record<ActionKind, number | null> = { ...base };
  for (const [kind, value] of Object.entries(raw)) {
    if (!(ACTION_KINDS as readonly string[]).includes(kind)) {
      throw new InvalidCampaignError(`weeklyLimits.${kind}`, `weeklyLimits accepts only ${ACTION_KINDS.join(', ')}`);
    }
    if (value === undefined) continue;
    if (value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > WEEKLY_LIMIT_MAX)) {
      throw new InvalidCampaignError(
        `weeklyLimits.${kind}`,
        `weeklyLimits.${kind} must be a whole number from 0 to ${WEEKLY_LIMIT_MAX}, or null for none`,
      );
    }
    limits[kind as ActionKind] = value;
  }
  return limits;
}
