import { raw, sql, type Statement } from '../sql';

/**
 * An erasure's time as its outcome row records it (`result.erasedAt`, JavaScript's ISO form,
 * to the millisecond) and as its erased rows carry it (`erased_at`), so the two compare as text.
 */
const ERASED_AT_TEXT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * The lowest seq above `afterSeq` of an erased audit row that no erasure accounts for
 * (docs/decisions/0017-erasure-and-retention.md#an-erasure-cannot-be-hidden), as `seq`, null when
 * every one is. A row is accounted for by the erasure that emptied it: a succeeded `erasure.*`
 * outcome row, later than the row, by its `erased_by`, whose `result.erasedAt` is its
 * `erased_at`; and the rows that carry one (erased_by, erased_at) must not outnumber the
 * `auditRows` the matching outcome rows counted (retention may since have pruned some: fewer is
 * fine). An UPDATE that empties a row and stamps it, made by whoever can write the table but
 * not by an erasure, has no such row: it cannot be hidden from full verification.
 */
export function firstUnexplainedErasure(afterSeq: number): Statement {
  return sql`
    WITH erased AS (
      SELECT a.seq, a.erased_by, to_char(a.erased_at AT TIME ZONE 'UTC', ${raw(ERASED_AT_TEXT)}) AS erased_at,
             count(*) OVER (PARTITION BY a.erased_by, a.erased_at) AS together
      FROM audit_log a WHERE a.erased_at IS NOT NULL),
    erasures AS (
      SELECT o.seq, o.actor_id, o.result->>'erasedAt' AS erased_at,
             CASE WHEN jsonb_typeof(o.result->'auditRows') = 'number' THEN (o.result->>'auditRows')::numeric ELSE 0 END AS counted
      FROM audit_log o
      WHERE o.tool LIKE 'erasure.%' AND o.status = 'succeeded' AND o.pending_seq IS NOT NULL AND jsonb_typeof(o.result) = 'object')
    SELECT min(e.seq) AS seq FROM erased e
    WHERE e.seq > ${afterSeq}::bigint
      AND e.together > coalesce((SELECT sum(x.counted) FROM erasures x
                                 WHERE x.actor_id = e.erased_by AND x.erased_at = e.erased_at AND x.seq > e.seq), 0)`;
}
