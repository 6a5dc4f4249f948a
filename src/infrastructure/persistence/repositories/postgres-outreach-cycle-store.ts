import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  OutreachCycleStore,
  type BeginAction,
  type BeginResult,
  type ClaimedTask,
  type FinishAction,
  type OutreachDecision,
  type StaleAction,
  type TaskCycleContext,
  type TaskRelease,
  type WrapUpContext,
} from '../../../application/outreach/ports/outreach-cycle-store.port';
import { actionTarget, type Proposal } from '../../../domain/outreach/actions';
import type { CampaignStatus } from '../../../domain/outreach/campaign';
import type { RecentResult } from '../../../domain/outreach/planning';
import {
  TASK_TYPES,
  TASK_ACTION,
  type ActionKind,
  type OutreachTaskStatus,
  type OutreachTaskType,
} from '../../../domain/outreach/outreach-task';
import type { QuotaScope } from '../../../domain/outreach/quota';
import { readQuota, refundSlot, reserveSlot } from './quota-ledger';
import type { Sql } from '../sql';
import { AuditAppender } from './postgres-audit-log';

const OPEN = `('Pending', 'InProgress')`;

interface CampaignRow {
  campaign_id: string;
  campaign_name: string;
  campaign_status: CampaignStatus;
  owner_id: string;
  limit_profile_lookup: number;
  limit_linkedin_message: number;
  limit_email: number;
}

const CAMPAIGN_COLUMNS = `c.id AS campaign_id, c.name AS campaign_name, c.status AS campaign_status, c.owner_id,
  c.limit_profile_lookup, c.limit_linkedin_message, c.limit_email`;

/** Thrown inside a transaction to roll it back with an answer. */
class Rollback extends Error {
  constructor(readonly result: BeginResult) {
    super(`rolled back: ${result.status}`);
  }
}

@Injectable()
export class PostgresOutreachCycleStore extends OutreachCycleStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditAppender,
  ) {
    super();
  }

  async claimTask(input: { workerId: string; now: Date; leaseMs: number; campaignId?: string }): Promise<ClaimedTask | null> {
    // SKIP LOCKED: concurrent workers each get a different task, none waits for another.
    const [rows] = await this.dataSource.query<[{ id: string; campaign_id: string; owner_id: string; attempts: number }[], number]>(
      `UPDATE outreach_tasks t
       SET status = 'InProgress', attempts = t.attempts + 1, lease_owner = $1, lease_expires_at = $3, updated_at = $2
       FROM campaigns c
       WHERE c.id = t.campaign_id AND t.id = (
         SELECT d.id FROM outreach_tasks d JOIN campaigns dc ON dc.id = d.campaign_id
         WHERE dc.status = 'active' AND d.next_run_at <= $2
           AND (d.status = 'Pending' OR (d.status = 'InProgress' AND d.lease_expires_at < $2))
           AND ($4::uuid IS NULL OR d.campaign_id = $4::uuid)
           AND NOT EXISTS (SELECT 1 FROM outreach_tasks p WHERE p.lead_id = d.lead_id AND p.step < d.step AND p.status IN ${OPEN})
           AND NOT EXISTS (SELECT 1 FROM outreach_actions a WHERE a.task_id = d.id AND a.status = 'in_flight')
         ORDER BY d.next_run_at, d.step, d.created_at, d.id
         LIMIT 1
         FOR UPDATE OF d SKIP LOCKED)
       RETURNING t.id, t.campaign_id, c.owner_id, t.attempts`,
      [input.workerId, input.now, new Date(input.now.getTime() + input.leaseMs), input.campaignId ?? null],
    );
    const row = rows[0];
    return row
      ? { taskId: row.id, campaignId: row.campaign_id, ownerId: row.owner_id, workerId: input.workerId, attempts: row.attempts }
      : null;
  }

  async findFinishedCampaign(input: { campaignId?: string }): Promise<{ campaignId: string; ownerId: string } | null> {
    const rows = await this.dataSource.query<{ id: string; owner_id: string }[]>(
      `SELECT c.id, c.owner_id FROM campaigns c
       WHERE c.status = 'active' AND ($1::uuid IS NULL OR c.id = $1::uuid)
         AND EXISTS (SELECT 1 FROM outreach_tasks t WHERE t.campaign_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM outreach_tasks t WHERE t.campaign_id = c.id AND t.status IN ${OPEN})
       ORDER BY c.updated_at LIMIT 1`,
      [input.campaignId ?? null],
    );
    return rows[0] ? { campaignId: rows[0].id, ownerId: rows[0].owner_id } : null;
  }

  async loadTaskContext(
    claim: ClaimedTask,
    input: { day: string; ownerLimits: Readonly<Record<ActionKind, number>>; secretNames: readonly string[] },
  ): Promise<TaskCycleContext | null> {
    const rows = await this.dataSource.query<
      (CampaignRow & {
        id: string;
        type: OutreachTaskType;
        status: OutreachTaskStatus;
        attempts: number;
        last_error: string | null;
        lead_name: string;
        linkedin_url: string;
        email: string | null;
        profile: { profile?: Record<string, unknown> } | null;
      })[]
    >(
      `SELECT t.id, t.type, t.status, t.attempts, t.last_error, l.name AS lead_name, l.linkedin_url, l.email,
         (SELECT s.output FROM outreach_tasks s WHERE s.lead_id = t.lead_id AND s.type = 'ScrapeProfile' AND s.status = 'Completed' LIMIT 1) AS profile,
         ${CAMPAIGN_COLUMNS}
       FROM outreach_tasks t JOIN leads l ON l.id = t.lead_id JOIN campaigns c ON c.id = t.campaign_id
       WHERE t.id = $1 AND t.lease_owner = $2 AND t.attempts = $3`,
      [claim.taskId, claim.workerId, claim.attempts],
    );
    const row = rows[0];
    if (!row) return null;
    const [quota, recent, blocked] = await Promise.all([
      readQuota(this.dataSource, campaignOf(row), input.ownerLimits, input.day),
      this.recent(row.campaign_id),
      this.dataSource.query<{ value: string }[]>(`SELECT value FROM do_not_contact WHERE owner_id = $1 AND value = ANY($2::text[])`, [
        row.owner_id,
        [row.linkedin_url, ...(row.email ? [row.email] : [])],
      ]),
    ]);
    return {
      kind: 'task',
      campaign: { id: row.campaign_id, name: row.campaign_name, status: row.campaign_status },
      task: { id: row.id, type: row.type, status: row.status, attempts: row.attempts, lastError: row.last_error },
      lead: { name: row.lead_name, linkedinUrl: row.linkedin_url, email: row.email, profile: row.profile?.profile ?? null },
      quota,
      recent,
      doNotContact: blocked.map((entry) => entry.value),
      secretNames: input.secretNames,
    };
  }

  async loadWrapUpContext(
    campaignId: string,
    input: { day: string; ownerLimits: Readonly<Record<ActionKind, number>> },
  ): Promise<WrapUpContext | null> {
    const rows = await this.dataSource.query<(CampaignRow & { open: string; finished: string })[]>(
      `SELECT ${CAMPAIGN_COLUMNS},
         (SELECT count(*) FROM outreach_tasks t WHERE t.campaign_id = c.id AND t.status IN ${OPEN}) AS open,
         (SELECT count(*) FROM outreach_tasks t WHERE t.campaign_id = c.id AND t.status NOT IN ${OPEN}) AS finished
       FROM campaigns c WHERE c.id = $1`,
      [campaignId],
    );
    const row = rows[0];
    if (!row) return null;
    const [quota, recent] = await Promise.all([
      readQuota(this.dataSource, campaignOf(row), input.ownerLimits, input.day),
      this.recent(campaignId),
    ]);
    return {
      kind: 'wrap_up',
      campaign: { id: row.campaign_id, name: row.campaign_name, status: row.campaign_status },
      openTasks: Number(row.open),
      finishedTasks: Number(row.finished),
      quota,
      recent,
    };
  }

  /** What the planner is shown of the campaign's past: its last 3 finished tasks, with the duration of their action. */
  private async recent(campaignId: string): Promise<RecentResult[]> {
    const rows = await this.dataSource.query<
      { type: OutreachTaskType; status: OutreachTaskStatus; lead_name: string; duration_ms: string | null }[]
    >(
      `SELECT t.type, t.status, l.name AS lead_name,
         (SELECT round(extract(epoch FROM a.finished_at - a.created_at) * 1000) FROM outreach_actions a
          WHERE a.task_id = t.id AND a.finished_at IS NOT NULL ORDER BY a.created_at DESC LIMIT 1) AS duration_ms
       FROM outreach_tasks t JOIN leads l ON l.id = t.lead_id
       WHERE t.campaign_id = $1 AND t.status IN ('Completed', 'Failed') AND t.completed_at IS NOT NULL
       ORDER BY t.completed_at DESC, t.id LIMIT 3`,
      [campaignId],
    );
    return rows.map((row) => ({ type: row.type, status: row.status, leadName: row.lead_name, durationMs: Number(row.duration_ms ?? 0) }));
  }

  async releaseTask(claim: ClaimedTask, release: TaskRelease, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [rows] = await manager.query<[{ id: string }[], number]>(
        `UPDATE outreach_tasks SET ${TASK_RELEASE_SET}
         WHERE id = $1 AND lease_owner = $8 AND attempts = $9 AND status = 'InProgress' RETURNING id`,
        [...releaseParameters(claim.taskId, release, now), claim.workerId, claim.attempts],
      );
      if (rows.length === 0) return false;
      await settleLead(manager, claim.taskId, release, now);
      return true;
    });
  }

  async deferKind(input: {
    ownerId: string;
    campaignId: string;
    scope: QuotaScope;
    kind: ActionKind;
    until: Date;
    now: Date;
  }): Promise<number> {
    const types = TASK_TYPES.filter((type) => TASK_ACTION[type].kind === input.kind);
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE outreach_tasks t SET next_run_at = $1, last_error = 'QUOTA_EXCEEDED', updated_at = $2
       FROM campaigns c
       WHERE c.id = t.campaign_id AND t.status = 'Pending' AND t.type = ANY($3::text[]) AND t.next_run_at < $1
         AND ${input.scope === 'campaign' ? 't.campaign_id = $4' : 'c.owner_id = $4'}`,
      [input.until, input.now, types, input.scope === 'campaign' ? input.campaignId : input.ownerId],
    );
    return count;
  }

  async begin(input: BeginAction): Promise<BeginResult> {
    const idempotencyKey = createHash('sha256').update(input.idempotencyMaterial).digest('hex');
    const leaseExpiresAt = new Date(input.now.getTime() + input.leaseMs);
    try {
      return await this.audit.transaction(this.dataSource, async (manager, append) => {
        const [held] = await manager.query<[unknown[], number]>(
          `UPDATE outreach_tasks SET lease_expires_at = $4
           WHERE id = $1 AND lease_owner = $2 AND attempts = $3 AND status = 'InProgress' RETURNING id`,
          [input.claim.taskId, input.claim.workerId, input.claim.attempts, leaseExpiresAt],
        );
        if (held.length === 0) throw new Rollback({ status: 'lease_lost' });
        const scopes: [QuotaScope, string][] = [
          ['campaign', input.claim.campaignId],
          ['owner', input.claim.ownerId],
        ];
        for (const [scope, scopeId] of scopes) {
          const reserved = await reserveSlot(manager, { scope, scopeId, kind: input.kind, day: input.day, limit: input.limits[scope] });
          if (!reserved) throw new Rollback({ status: 'quota_exceeded', scope });
        }
        const pendingSeq = await append(input.audit, { status: 'pending' }, null);
        const inserted = await manager.query<{ id: string }[]>(
          `INSERT INTO outreach_actions (task_id, campaign_id, owner_id, decision_id, action, kind, channel, target, args,
             idempotency_key, status, pending_audit_seq, lease_expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'in_flight', $11, $12, $13)
           ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
          [
            input.claim.taskId,
            input.claim.campaignId,
            input.claim.ownerId,
            input.decisionId,
            input.proposal.action,
            input.kind,
            input.channel,
            actionTarget(input.proposal) ?? '',
            JSON.stringify({ ...input.proposal.args }),
            idempotencyKey,
            pendingSeq,
            leaseExpiresAt,
            input.now,
          ],
        );
        if (inserted.length === 0) throw new Rollback({ status: 'duplicate', idempotencyKey });
        return { status: 'reserved' as const, actionId: inserted[0].id, idempotencyKey, pendingSeq };
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result;
      throw error;
    }
  }

  async finish(input: FinishAction): Promise<void> {
    await this.audit.transaction(this.dataSource, async (manager, append) => {
      const [rows] = await manager.query<[unknown[], number]>(
        `UPDATE outreach_actions SET status = $2, result = $3, error_code = $4, finished_at = $5
         WHERE id = $1 AND status = 'in_flight' RETURNING id`,
        [
          input.actionId,
          input.outcome.status,
          input.outcome.result === undefined ? null : JSON.stringify(input.outcome.result),
          input.outcome.errorCode ?? null,
          input.now,
        ],
      );
      // Someone (the sweeper) settled it first: its record stands.
      if (rows.length === 0) return;
      if (input.refundQuota) await refundSlot(manager, input.actionId, input.refundQuota.day);
      await append(input.audit, input.outcome, input.pendingSeq);
      await manager.query(
        `UPDATE outreach_tasks SET ${TASK_RELEASE_SET} WHERE id = $1`,
        releaseParameters(input.taskId, input.task, input.now),
      );
      await settleLead(manager, input.taskId, input.task, input.now);
    });
  }

  async completeCampaign(campaignId: string, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      // The row lock waits for an import in progress (it locks the campaign too); the count
      // that follows, a new statement, then sees the tasks that import added.
      const locked = await manager.query<unknown[]>(`SELECT 1 FROM campaigns WHERE id = $1 AND status = 'active' FOR UPDATE`, [campaignId]);
      if (locked.length === 0) return false;
      const open = await manager.query<unknown[]>(`SELECT 1 FROM outreach_tasks WHERE campaign_id = $1 AND status IN ${OPEN} LIMIT 1`, [
        campaignId,
      ]);
      if (open.length > 0) return false;
      await manager.query(`UPDATE campaigns SET status = 'completed', completed_at = $2, updated_at = $2 WHERE id = $1`, [campaignId, now]);
      return true;
    });
  }

  async recordDecision(decision: OutreachDecision): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO decision_logs (id, user_id, campaign_id, outreach_task_id, decision_type, status, iterations, provider, model,
         prompt_tokens, completion_tokens, cost, duration_ms, failure_class, provider_request_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        decision.id,
        decision.ownerId,
        decision.campaignId,
        decision.taskId,
        decision.decisionType,
        decision.status,
        decision.iterations,
        decision.provider,
        decision.model,
        decision.promptTokens,
        decision.completionTokens,
        decision.cost,
        decision.durationMs,
        decision.failureClass,
        decision.providerRequestId,
        decision.createdAt,
      ],
    );
  }

  async claimStaleActions(input: { now: Date; leaseMs: number; limit: number }): Promise<StaleAction[]> {
    const [rows] = await this.dataSource.query<
      [
        {
          id: string;
          task_id: string;
          campaign_id: string;
          owner_id: string;
          decision_id: string;
          pending_audit_seq: string;
          action: Proposal['action'];
          args: Record<string, unknown>;
          channel: string;
          idempotency_key: string;
        }[],
        number,
      ]
    >(
      `UPDATE outreach_actions a SET lease_expires_at = $2
       WHERE a.id IN (SELECT s.id FROM outreach_actions s WHERE s.status = 'in_flight' AND s.lease_expires_at < $1
                      ORDER BY s.lease_expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING a.id, a.task_id, a.campaign_id, a.owner_id, a.decision_id, a.pending_audit_seq, a.action, a.args, a.channel, a.idempotency_key`,
      [input.now, new Date(input.now.getTime() + input.leaseMs), input.limit],
    );
    return rows.map((row) => ({
      actionId: row.id,
      taskId: row.task_id,
      campaignId: row.campaign_id,
      ownerId: row.owner_id,
      decisionId: row.decision_id,
      pendingSeq: Number(row.pending_audit_seq),
      proposal: { action: row.action, args: row.args, reason: 'recovered after its worker stopped' } as Proposal,
      channel: row.channel,
      idempotencyKey: row.idempotency_key,
    }));
  }
}

/** SET clause for a task's new state; parameters from releaseParameters ($1 is the task id). */
const TASK_RELEASE_SET = `status = $2::varchar, next_run_at = COALESCE($3::timestamptz, next_run_at),
  output = CASE WHEN $4::boolean THEN $5::jsonb ELSE output END, last_error = $6::varchar,
  lease_owner = NULL, lease_expires_at = NULL, updated_at = $7::timestamptz,
  completed_at = CASE WHEN $2::varchar IN ('Completed', 'Failed', 'Cancelled') THEN $7::timestamptz ELSE NULL END`;

function releaseParameters(taskId: string, release: TaskRelease, now: Date): unknown[] {
  return [
    taskId,
    release.status,
    release.nextRunAt ?? null,
    release.output !== undefined,
    release.output === undefined || release.output === null ? null : JSON.stringify(release.output),
    release.lastError ?? null,
    now,
  ];
}

/** A lead is done when none of its tasks is open; on the do-not-contact list, its other tasks are cancelled. */
async function settleLead(sql: Sql, taskId: string, release: TaskRelease, now: Date): Promise<void> {
  if (release.lastError === 'DO_NOT_CONTACT') {
    await sql.query(
      `UPDATE outreach_tasks SET status = 'Cancelled', last_error = 'DO_NOT_CONTACT', completed_at = $2, updated_at = $2
       WHERE lead_id = (SELECT lead_id FROM outreach_tasks WHERE id = $1) AND status = 'Pending'`,
      [taskId, now],
    );
  }
  await sql.query(
    `UPDATE leads l SET status = CASE
       WHEN $2 THEN 'do_not_contact'
       WHEN EXISTS (SELECT 1 FROM outreach_tasks o WHERE o.lead_id = l.id AND o.status IN ${OPEN}) THEN 'in_progress'
       ELSE 'done' END
     WHERE l.id = (SELECT lead_id FROM outreach_tasks WHERE id = $1)`,
    [taskId, release.lastError === 'DO_NOT_CONTACT'],
  );
}

function campaignOf(row: CampaignRow) {
  return {
    id: row.campaign_id,
    ownerId: row.owner_id,
    dailyLimits: { profile_lookup: row.limit_profile_lookup, linkedin_message: row.limit_linkedin_message, email: row.limit_email },
  };
}
