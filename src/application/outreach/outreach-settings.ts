import type { ActionKind } from '../../domain/outreach/outreach-task';

/** How the outreach controller runs; built from configuration by the composition root. */
export abstract class OutreachSettings {
  /** Per owner, per UTC day, across all campaigns. */
  abstract readonly ownerDailyLimits: Readonly<Record<ActionKind, number>>;
  /** How long a claimed task (and an action in flight) belongs to one worker. */
  abstract readonly leaseMs: number;
  /** Deadline of the planning call (including its one re-ask). */
  abstract readonly planTimeoutMs: number;
  /** Deadline of one channel action. */
  abstract readonly actionTimeoutMs: number;
  /** Secret names refresh_session may fetch. */
  abstract readonly secretNames: readonly string[];
}
