import type { ToolAuditEntry } from '../../../../application/audit/ports/audit-log.port';

/** The audit entry of a step in a draft's review (approve, reject, expire, escalate), by `actorId`. */
export function reviewEntry(
  draft: { campaign_id: string; task_id: string },
  actorId: string,
  tool: string,
  args: Record<string, unknown>,
): ToolAuditEntry {
  return {
    source: 'outreach',
    actorId,
    campaignId: draft.campaign_id,
    outreachTaskId: draft.task_id,
    tool,
    arguments: args,
    securityEvents: [],
  };
}
