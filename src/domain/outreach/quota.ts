import type { ActionKind } from './outreach-task';

export const QUOTA_SCOPES = ['campaign', 'owner'] as const;
export type QuotaScope = (typeof QUOTA_SCOPES)[number];

/** Today's use against one limit. */
export interface QuotaUse {
  readonly used: number;
  readonly limit: number;
}

/** Per kind: the campaign's own limit and the owner's limit across campaigns. */
export type QuotaState = Readonly<Record<ActionKind, Readonly<Record<QuotaScope, QuotaUse>>>>;

export function remainingOf(state: QuotaState, kind: ActionKind): number {
  const { campaign, owner } = state[kind];
  return Math.max(0, Math.min(campaign.limit - campaign.used, owner.limit - owner.used));
}

/** The scope that stops `kind`, or null while both have room. */
export function exhaustedScope(state: QuotaState, kind: ActionKind): QuotaScope | null {
  const { campaign, owner } = state[kind];
  if (campaign.used >= campaign.limit) return 'campaign';
  if (owner.used >= owner.limit) return 'owner';
  return null;
}

/** Quotas count per UTC day: `YYYY-MM-DD`. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Hours from `now` until the quotas reset, rounded up to the hundredth so that it reaches it. */
export function hoursUntilReset(now: Date): number {
  return Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 36_000) / 100;
}
