import { Injectable } from '@nestjs/common';
import type { ActionKind } from '../../domain/outreach/outreach-task';
import { slotLimits } from '../../domain/outreach/quota';
import type { PolicyRule } from '../../domain/policy/policy';
import type { ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { leaseLost, outcome, type Shown, type StepEnd, type TaskScope, taskView } from './cycle';
import type { ChannelAction } from './outreach-channels';
import { QuotaDeferral } from './outreach-quota-deferral';
import { OutreachSettings } from './outreach-settings';
import { OutreachDraftStore } from './ports/outreach-draft-store.port';

/**
 * Review before send: when the campaign's review mode or a rule of the policy asks for it, the action is stored as a
 * draft bound to its arguments' hash, its quota slot held, audited, and the task parked
 * (AwaitingReview) until its owner decides. Nothing reaches a channel.
 */
@Injectable()
export class ReviewHold {
  constructor(
    private readonly drafts: OutreachDraftStore,
    private readonly quota: QuotaDeferral,
    private readonly settings: OutreachSettings,
    private readonly clock: Clock,
  ) {}

  /**
   * Holds `proposal` as a draft on a slot of `kind` on `day`. The draft store writes the task's
   * state (AwaitingReview) itself: a held action settles nothing at the cycle's end.
   */
  async hold(
    task: TaskScope,
    proposal: ChannelAction,
    audited: ToolAuditEntry,
    shown: Shown,
    kind: ActionKind,
    day: string,
    reviewer?: PolicyRule['reviewer'],
  ): Promise<StepEnd> {
    const now = this.clock.now();
    // A rule's reviewer has its own time to answer, and what happens when nobody does.
    const ttlMs = reviewer ? reviewer.timeoutMinutes * 60_000 : this.settings.draftTtlHours * 3_600_000;
    const held = await this.drafts.hold({
      claim: task.claim,
      decisionId: task.decisionId,
      proposal,
      kind,
      limits: slotLimits(task.context.quota, kind),
      day,
      now,
      expiresAt: new Date(now.getTime() + ttlMs),
      ...(reviewer ? { onExpiry: reviewer.fallback } : {}),
      audit: audited,
    });
    if (held.status === 'lease_lost') return leaseLost(shown, 'drafting');
    if (held.status === 'quota_exceeded') return this.quota.reachedMeanwhile(task, audited, held.block, shown);
    const result = outcome({
      ...shown,
      status: 'awaiting_review',
      code: 'AWAITING_REVIEW',
      message: `${proposal.action} is held as draft ${held.draftId} for review until ${held.expiresAt.toISOString()}; nothing was sent.`,
      task: taskView(task, { status: 'AwaitingReview' }),
      review: { draftId: held.draftId, argumentsHash: held.argumentsHash, expiresAt: held.expiresAt },
    });
    return { outcome: result, settlement: null };
  }
}
