import { DomainError, DomainValidationError } from '../shared/domain-error';
import { cleanText, labelProblem } from '../shared/untrusted-text-normalisation';
import { briefOf, type BriefResult, type CampaignBrief, EMPTY_BRIEF, EMPTY_TEMPLATES, type MessageTemplates, templatesOf } from './brief';
import { ACTION_KIND_PATTERN, ACTION_KINDS, type ActionKind, type BuiltInKind } from './outreach-task';
import { QUOTA_WINDOWS, type WeeklyLimits } from './quota';
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

/** Rows one request's `limits` may have. */
export const LIMIT_ROWS_MAX = 100;

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
  readonly weeklyLimits?: Partial<Record<BuiltInKind, number | null>>;
}

/**
 * A request's limits as rows, for any kind a channel performs (a channel added later has no
 * named field): `[{kind, window: 'day' | 'week', max}]`; a number sets that limit, null
 * removes it (a day's goes back to the default). Applied after dailyLimits and weeklyLimits.
 */
export interface LimitChanges {
  readonly limits?: unknown;
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

/** What a request may say of a campaign's limits. */
export type LimitRequest = { dailyLimits?: Partial<Record<BuiltInKind, number>> } & WeeklyLimitChanges & LimitChanges;

/**
 * `kinds`: the kinds a campaign may limit, those of the channels in service (the built-in
 * ones unless told); a limit of any other kind is refused, naming its field.
 */
export function draftCampaign(
  input: { name: string } & LimitRequest & ApprovalChanges & BriefChanges,
  kinds: readonly ActionKind[] = ACTION_KINDS,
): CampaignDraft {
  return {
    name: validName(input.name),
    ...relimited(input, { dailyLimits: defaultLimits(), weeklyLimits: NO_WEEKLY_LIMITS }, kinds),
    approval: approvalOrThrow(approvalPolicyOf({ mode: input.approvalMode, firstN: input.approvalFirstN }, DEFAULT_APPROVAL_POLICY)),
    brief: checked(briefOf(input.brief, EMPTY_BRIEF)),
    templates: checked(templatesOf(input.templates, EMPTY_TEMPLATES)),
  };
}

export function renameOrRelimit(
  campaign: Campaign,
  changes: { name?: string } & LimitRequest & ApprovalChanges & BriefChanges,
  kinds: readonly ActionKind[] = ACTION_KINDS,
): Pick<Campaign, 'name' | 'dailyLimits' | 'weeklyLimits' | 'approval' | 'brief' | 'templates'> {
  if (campaign.status === 'completed') throw new CampaignStateError('A completed campaign cannot be changed');
  return {
    name: changes.name === undefined ? campaign.name : validName(changes.name),
    ...relimited(changes, campaign, kinds),
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
  return Object.fromEntries(ACTION_KINDS.map((kind) => [kind, DEFAULT_DAILY_LIMIT]));
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

/** The limits a request leaves: its dailyLimits and weeklyLimits, then its limits rows, on top of `base`. */
function relimited(
  request: LimitRequest,
  base: Pick<Campaign, 'dailyLimits' | 'weeklyLimits'>,
  kinds: readonly ActionKind[],
): Pick<Campaign, 'dailyLimits' | 'weeklyLimits'> {
  const dailyLimits: Record<ActionKind, number> = { ...validLimits(request.dailyLimits ?? {}, base.dailyLimits) };
  const weeklyLimits: Record<ActionKind, number | null> = { ...validWeeklyLimits(request.weeklyLimits ?? {}, base.weeklyLimits) };
  const rows = request.limits;
  if (rows === undefined) return { dailyLimits, weeklyLimits };
  if (!Array.isArray(rows)) throw new InvalidCampaignError('limits', 'limits must be a list of {kind, window, max}');
  if (rows.length > LIMIT_ROWS_MAX) throw new InvalidCampaignError('limits', `limits must have at most ${LIMIT_ROWS_MAX} rows`);
  for (const [n, row] of rows.entries()) {
    const { kind, window, max } = limitRow(row, `limits[${n}]`, kinds);
    if (window === 'week') weeklyLimits[kind] = max;
    else if (max === null) delete dailyLimits[kind];
    else dailyLimits[kind] = max;
  }
  // A kind with no daily limit of its own has the default; the built-in ones keep theirs named.
  for (const kind of ACTION_KINDS) dailyLimits[kind] ??= DEFAULT_DAILY_LIMIT;
  for (const kind of ACTION_KINDS) weeklyLimits[kind] ??= null;
  return { dailyLimits, weeklyLimits };
}

/** One row of a request's limits, checked; each problem names its field (`limits[1].max`). */
function limitRow(
  raw: unknown,
  field: string,
  kinds: readonly ActionKind[],
): { kind: ActionKind; window: 'day' | 'week'; max: number | null } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidCampaignError(field, `${field} must be an object with kind, window and max`);
  }
  const { kind, window, max, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    throw new InvalidCampaignError(`${field}.${extra}`, `${field}.${extra} is not accepted: a limit has kind, window and max`);
  if (typeof kind !== 'string' || !ACTION_KIND_PATTERN.test(kind) || !kinds.includes(kind)) {
    throw new InvalidCampaignError(`${field}.kind`, `${field}.kind must be one of ${kinds.join(', ')}`);
  }
  if (window !== 'day' && window !== 'week') {
    throw new InvalidCampaignError(`${field}.window`, `${field}.window must be one of ${QUOTA_WINDOWS.join(', ')}`);
  }
  const top = window === 'day' ? DAILY_LIMIT_MAX : WEEKLY_LIMIT_MAX;
  if (max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > top)) {
    throw new InvalidCampaignError(`${field}.max`, `${field}.max must be a whole number from 0 to ${top}, or null to remove it`);
  }
  return { kind, window, max };
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
    limits[kind] = value;
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
    limits[kind] = value;
  }
  return limits;
}
