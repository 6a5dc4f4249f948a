import type { SecurityEvent, ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { PolicyVerdict } from '../../../domain/policy/policy';

/**
 * A tool call's audit status. `confirmation_required`: a dry run that put a destructive call
 * to the person, the same name as the turn's `finishReason` and the tool error's code.
 */
export type ToolAuditStatus = 'pending' | 'succeeded' | 'failed' | 'rejected' | 'unknown' | 'confirmation_required';

/** Who did what through which tool; written by the server, never by the model. */
export interface ToolAuditEntry {
  /** `api`: a request of the person's own to the REST task routes that the policy refused (docs/policies.md). */
  readonly source: 'chat' | 'mcp' | 'outreach' | 'admin' | 'account' | 'api';
  readonly actorId: string;
  readonly conversationId?: string;
  readonly campaignId?: string;
  readonly outreachTaskId?: string;
  readonly decisionId?: string;
  readonly tool: string;
  readonly arguments: ToolArguments | string;
  readonly securityEvents: readonly SecurityEvent[];
  /** What the policy in force said of the call (docs/policies.md); absent on rows that are no tool call's. */
  readonly policy?: PolicyVerdict;
}

/**
 * How a call ended. A row with an error code always says, in a sentence, what it means: the
 * sentence the person is told for a failed or refused tool call (failures.ts), or what a
 * refusal of the controller's or a failed admin step was (redacted when written). The type
 * asks for both or neither, so that no writer can leave a code unexplained.
 */
export type ToolAuditEnding = { readonly status: Exclude<ToolAuditStatus, 'pending'>; readonly result?: unknown } & (
  { readonly errorCode?: undefined; readonly errorMessage?: undefined } | { readonly errorCode: string; readonly errorMessage: string }
);

/** What a row says of an error that is no refusal of a rule's: a failure the server did not expect. */
export const UNEXPECTED_ERROR = 'An unexpected error occurred.';

/** What an export's row says when its reader stopped before the last row. */
export const EXPORT_ABORTED = 'The export stopped before its last row: the reader went away or reading failed.';

export type ToolAuditOutcome = ToolAuditEnding & { readonly durationMs: number };

/** The append-only record of tool calls. An outcome row references its pending row. */
export abstract class AuditLog {
  /** Commits the pending row before the tool runs. @returns its sequence number. */
  abstract recordPending(entry: ToolAuditEntry): Promise<number>;
  abstract recordOutcome(pendingSeq: number, entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void>;
  /** One row for a call with no side effect, or one refused before it ran. */
  abstract record(entry: ToolAuditEntry, outcome: ToolAuditOutcome): Promise<void>;
}
