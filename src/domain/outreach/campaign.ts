import { DomainError, DomainValidationError } from '../shared/domain-error';
import { ACTION_KINDS, type ActionKind } from './outreach-task';

export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_NAME_MAX_LENGTH = 120;
/** Per campaign, per UTC day, per action kind, unless the campaign says otherwise. */
export const DEFAULT_DAILY_LIMIT = 50;
export const DAILY_LIMIT_MAX = 10_000;

export type DailyLimits = Readonly<Record<ActionKind, number>>;

export interface Campaign {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly status: CampaignStatus;
  readonly dailyLimits: DailyLimits;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly completedAt: Date | null;
}

export interface CampaignDraft {
  readonly name: string;
  readonly dailyLimits: DailyLimits;
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

export function draftCampaign(input: { name: string; dailyLimits?: Partial<Record<ActionKind, number>> }): CampaignDraft {
  return { name: validName(input.name), dailyLimits: validLimits(input.dailyLimits ?? {}, defaultLimits()) };
}

export function renameOrRelimit(
  campaign: Campaign,
  changes: { name?: string; dailyLimits?: Partial<Record<ActionKind, number>> },
): Pick<Campaign, 'name' | 'dailyLimits'> {
  if (campaign.status === 'completed') throw new CampaignStateError('A completed campaign cannot be changed');
  return {
    name: changes.name === undefined ? campaign.name : validName(changes.name),
    dailyLimits: validLimits(changes.dailyLimits ?? {}, campaign.dailyLimits),
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

function defaultLimits(): DailyLimits {
  return Object.fromEntries(ACTION_KINDS.map((kind) => [kind, DEFAULT_DAILY_LIMIT])) as Record<ActionKind, number>;
}

function validName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length === 0 || name.length > CAMPAIGN_NAME_MAX_LENGTH) {
    throw new InvalidCampaignError('name', `name must be 1 to ${CAMPAIGN_NAME_MAX_LENGTH} characters long`);
  }
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
