import type { DecisionMeasures } from '../../agent/decision-measures';
import type { TurnStatus } from '../../../domain/agent/decision';
import type { IntentType, OutcomeCategory } from '../../../domain/agent/turn-outcome';
import type { ToolAuditEntry, ToolAuditStatus } from './audit-log.port';
import type { CycleStatus } from '../../../domain/outreach/cycle-status';
import type { Page } from '../../shared/page';
import type { SignedCheckpoint } from '../../../domain/audit/checkpoint';
import type { PolicySource, PolicyVerdict } from '../../../domain/policy/policy';
import type { Role } from '../../../domain/identity/user';

export type AuditSource = ToolAuditEntry['source'];
/**
 * A decision log row's status: a chat turn's (`pending` while it runs, `interrupted` when it
 * never finished and the sweeper answered for it), or an outreach cycle's.
 */
export type DecisionStatus = TurnStatus | 'pending' | 'interrupted' | CycleStatus;

// Records keyed by the union, so that adding a source or status elsewhere fails to compile here.
const SOURCES: Record<AuditSource, true> = { chat: true, mcp: true, outreach: true, admin: true, account: true, api: true };
const STATUSES: Record<ToolAuditStatus, true> = {
  pending: true,
  succeeded: true,
  failed: true,
  rejected: true,
  unknown: true,
  confirmation_required: true,
};
const DECISION_STATUSES_SET: Record<DecisionStatus, true> = {
  completed: true,
  max_iterations_reached: true,
  error: true,
  idle: true,
  deferred: true,
  failed: true,
  unknown: true,
  campaign_completed: true,
  awaiting_review: true,
  pending: true,
  interrupted: true,
};

export const AUDIT_SOURCES = Object.keys(SOURCES) as readonly AuditSource[];
export const AUDIT_STATUSES = Object.keys(STATUSES) as readonly ToolAuditStatus[];
/**
 * A status as a row holds it: what Bridle writes, or `confirmation_requested`, the old name of
 * `confirmation_required` on rows written before the two were one. Rows are hash-chained, so
 * they keep it; filtering on `confirmation_required` finds both.
 */
export type RecordedAuditStatus = ToolAuditStatus | 'confirmation_requested';
export const RECORDED_AUDIT_STATUSES: readonly RecordedAuditStatus[] = [...AUDIT_STATUSES, 'confirmation_requested'];
export const DECISION_STATUSES = Object.keys(DECISION_STATUSES_SET) as readonly DecisionStatus[];

/** Every field narrows; `from` is inclusive and `to` exclusive, on the row's creation time. */
export interface AuditFilter {
  readonly actorId?: string;
  /** The actor account's email as it is now, compared without regard to case (rows of a deleted account have none). */
  readonly actorEmail?: string;
  readonly source?: AuditSource;
  readonly tool?: string;
  readonly status?: ToolAuditStatus;
  readonly conversationId?: string;
  readonly campaignId?: string;
  readonly decisionId?: string;
  readonly from?: Date;
  readonly to?: Date;
}

/** The filters of AuditFilter that a decision log row has; actorId is the decision's user. */
export interface DecisionFilter {
  readonly actorId?: string;
  readonly status?: DecisionStatus;
  readonly conversationId?: string;
  readonly campaignId?: string;
  readonly decisionId?: string;
  readonly from?: Date;
  readonly to?: Date;
}

/** One audit_log row as stored: arguments and result were redacted when written. */
export interface AuditRecord {
  readonly seq: number;
  readonly createdAt: Date;
  readonly source: AuditSource;
  readonly actorId: string;
  /** The actor account's email, read now (not recorded in the row); null once the account no longer exists. */
  readonly actorEmail: string | null;
  readonly conversationId: string | null;
  readonly campaignId: string | null;
  readonly outreachTaskId: string | null;
  readonly decisionId: string | null;
  readonly tool: string;
  readonly arguments: unknown;
  readonly status: RecordedAuditStatus;
  readonly result: unknown;
  readonly errorCode: string | null;
  /** A failed or refused tool call's: the sentence the person is told for its error, redacted; null otherwise and on older rows. */
  readonly errorMessage: string | null;
  readonly durationMs: number | null;
  readonly securityEvents: readonly unknown[];
  /** For an outcome row, the seq of its pending row. */
  readonly pendingSeq: number | null;
  /** What the policy in force said of the call; null on rows that are no tool call's and on older rows. */
  readonly policy: PolicyVerdict | null;
  /** Its link in the chain; null until the sealer has linked it (normally within a second). */
  readonly hash: string | null;
  readonly prevHash: string | null;
  /** Where it stands: linked into the chain, queued for the sealer, or outside the log (see AuditRowPlace). */
  readonly chain: AuditRowPlace;
  /** Who erased its personal fields (arguments, result, error message), and when; null while they are there (not part of the hashed row). */
  readonly erasedBy: string | null;
  readonly erasedAt: Date | null;
}

/**
 * Where an audit row stands. `linked`: in the chain. `queued`: waiting for the sealer
 * (normally under a second). `outside`: no row of the log, made around the triggers by the
 * tables' owner: numbered below 1, sharing its number with another row, linked twice, or
 * neither linked nor queued. Verification fails on such a row.
 */
export type AuditRowPlace = 'linked' | 'queued' | 'outside';
export const AUDIT_ROW_PLACES = ['linked', 'queued', 'outside'] as const satisfies readonly AuditRowPlace[];

/**
 * One recorded tool call, as a dry run of a policy replays it: its pending row (a call that
 * changes something has a pending row and an outcome row that references it) or its only row.
 */
export interface RecordedToolCall {
  readonly seq: number;
  readonly createdAt: Date;
  readonly source: PolicySource;
  readonly actorId: string;
  /** The actor account's email and role, read now (not recorded in the row); null once the account no longer exists. */
  readonly actorEmail: string | null;
  readonly actorRole: Role | null;
  readonly tool: string;
  /** As recorded: redacted when written, and possibly personal data, so never shown by a dry run. */
  readonly arguments: unknown;
  /** The row's status: `pending` for a call that changes something, else its only outcome. */
  readonly status: RecordedAuditStatus;
  /** How many things the call touched as the policy read it when it was decided (PolicyVerdict.items); null on older rows. */
  readonly items: number | null;
}

/** One decision log row: a chat turn (conversationId) or an outreach cycle (campaignId). */
export interface DecisionRecord extends DecisionMeasures {
  readonly id: string;
  readonly createdAt: Date;
  readonly actorId: string;
  /** The user's email, read now; null once the account no longer exists. */
  readonly actorEmail: string | null;
  readonly conversationId: string | null;
  readonly campaignId: string | null;
  readonly outreachTaskId: string | null;
  readonly decisionType: string;
  /** A chat turn's ASK_CLARIFICATION: the question the person was asked; null otherwise. */
  readonly clarificationQuestion: string | null;
  readonly status: string;
  /** A chat turn's: the person's message it answered (messages.id); null for outreach cycles and older turns. */
  readonly messageId: string | null;
  /** A chat turn's: what the person wanted; null for outreach cycles and older turns. */
  readonly intentType: IntentType | null;
  /** A chat turn's: how it ended for the person; null for outreach cycles and older turns. */
  readonly outcomeCategory: OutcomeCategory | null;
  /** A finished chat turn's sampling (the server's, or the request's own); null otherwise. */
  readonly temperature: number | null;
  readonly maxTokens: number | null;
}

/** What the model was told in a chat turn: the summary it read, and which stored messages. */
export interface TurnContextView {
  readonly summaryId: string | null;
  readonly summary: string | null;
  readonly firstSeq: number | null;
  readonly lastSeq: number | null;
  readonly messages: number;
  readonly estimatedTokens: number;
}

export interface DecisionWithToolCalls extends DecisionRecord {
  /** Its audit rows, in sequence order. */
  readonly toolCalls: readonly AuditRecord[];
  /** Chat turns: what the model was told besides the message; null for outreach cycles and older turns. */
  readonly context: TurnContextView | null;
  /** A chat turn's: the person's message it answered (messageId), as stored; null for outreach cycles. */
  readonly message: { readonly id: string; readonly content: string; readonly createdAt: Date } | null;
}

export interface ChainVerification {
  readonly verified: boolean;
  readonly checkedRows: number;
  /** The first row whose prev_hash or hash does not hold; null when verified. */
  readonly firstBadSeq: number | null;
  /** The last checked row's hash (null for an empty log): keep it elsewhere to detect a rewritten tail. */
  readonly headHash: string | null;
  /** Rows appended but not linked yet (committed after verify's sealing, during its walk); not checked. */
  readonly unsealedRows: number;
}

/** The admin's read side of the audit log and the decision log. */
export abstract class AuditReader {
  /**
   * Newest first by seq. The cursor is the last seq returned, so a page never moves
   * while rows are appended: new rows only ever get higher numbers.
   * @throws InvalidCursorError for a cursor this reader did not make.
   */
  abstract list(filter: AuditFilter, limit: number, cursor: string | null): Promise<Page<AuditRecord>>;
  abstract get(seq: number): Promise<AuditRecord | null>;
  /** Newest first by (created_at, id). @throws InvalidCursorError as list does. */
  abstract listDecisions(filter: DecisionFilter, limit: number, cursor: string | null): Promise<Page<DecisionRecord>>;
  abstract getDecision(id: string): Promise<DecisionWithToolCalls | null>;
  /**
   * The matching rows oldest first (seq ascending), up to the newest row when iteration
   * began, read in batches: never the whole table in memory. Stop iterating to stop reading.
   */
  abstract export(filter: AuditFilter): AsyncIterable<AuditRecord>;
  /**
   * The newest `limit` tool calls (sources chat, mcp and outreach), each once, newest first:
   * one statement, bounded by `limit`. Admin reads and account changes are no tool calls.
   */
  abstract recentToolCalls(limit: number): Promise<RecordedToolCall[]>;
  /**
   * Walks the chain in its order, checking each link and hash in the database, and counts the
   * unsealed tail. Every row must be accounted for: a row outside the log (see AuditRowPlace)
   * fails it, and so does a link numbered below 1, which no walk from position 1 reaches.
   * @param from a checkpoint to start at instead of the first link: the link at its position
   *   must be its row's (seq) with its hash, and hash to its row; then only the links after it
   *   are walked, and only rows numbered above its row (or below 1) are accounted for.
   */
  abstract verify(from?: ChainLink): Promise<ChainVerification>;
  /**
   * The checkpoint retention pruned the log up to (rows linked before it may be gone; its own
   * row and every link stay), or null when nothing was ever pruned.
   */
  abstract prunedBefore(): Promise<SignedCheckpoint | null>;
  /**
   * The lowest seq above `afterSeq` of an erased row that no erasure accounts for, or null
   * (docs/decisions/0017-erasure-and-retention.md#an-erasure-cannot-be-hidden): each erased row
   * needs a later succeeded `erasure.*` outcome row by its `erased_by` whose result's `erasedAt`
   * is its `erased_at`, and the rows so stamped must not outnumber the `auditRows` those
   * outcome rows counted.
   */
  abstract firstUnexplainedErasure(afterSeq: number): Promise<number | null>;
  /** The newest checkpoint, or null before the first. */
  abstract latestCheckpoint(): Promise<SignedCheckpoint | null>;
  /** Every checkpoint, oldest first, read in batches. */
  abstract checkpoints(): AsyncIterable<SignedCheckpoint>;
  /** The checkpoint at this position; null when there is none. */
  abstract checkpointAt(position: number): Promise<SignedCheckpoint | null>;
  /** Every link numbered 1 or above, in position order, read in batches. */
  abstract links(): AsyncIterable<ChainLink>;
  /** The chain's links at these positions; a position with no link is absent from the map. */
  abstract linksAt(positions: readonly number[]): Promise<ReadonlyMap<number, ChainLink>>;
}

/** A link of the chain: its position, its row's seq and its hash. */
export interface ChainLink {
  readonly position: number;
  readonly seq: number;
  readonly hash: string;
}
