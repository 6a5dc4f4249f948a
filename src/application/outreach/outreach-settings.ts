import type { ActionKind } from '../../domain/outreach/outreach-task';
import type { OwnerLimits } from '../../domain/outreach/quota';

/** How the outreach controller runs; built from configuration by the composition root. */
export abstract class OutreachSettings {
  /** Per owner, per UTC day, across all campaigns. */
  abstract readonly ownerDailyLimits: Readonly<Record<ActionKind, number>>;
  /** Per owner, per rolling week (the UTC day and the 6 before it), across all campaigns. */
  abstract readonly ownerWeeklyLimits: Readonly<Record<ActionKind, number>>;
  /** How long a claimed task (and an action in flight) belongs to one worker. */
  abstract readonly leaseMs: number;
  /** Deadline of the planning call (including its one re-ask). */
  abstract readonly planTimeoutMs: number;
  /** Deadline of one channel action. */
  abstract readonly actionTimeoutMs: number;
  /** Secret names refresh_session may fetch. */
  abstract readonly secretNames: readonly string[];
  /** How long a draft held for review waits for its owner before it expires (its slot given back). */
  abstract readonly draftTtlHours: number;
}

/** The owner's limits, daily and weekly, as the quota reads take them. */
export function ownerLimitsOf(settings: OutreachSettings): OwnerLimits {
  return { daily: settings.ownerDailyLimits, weekly: settings.ownerWeeklyLimits };
}
