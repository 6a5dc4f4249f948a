/**
 * The chain as the database holds it, recomputed in SQL: the seq of every link that does
 * not follow the one before it or does not hash to its row, in chain order.
 */
export const BROKEN_LINKS = `
  SELECT seq FROM (
    SELECT c.position, c.seq, c.prev_hash, c.hash, a.seq IS NOT NULL AND c.hash = audit_row_hash(c.prev_hash, a) AS intact,
           coalesce(lag(c.hash) OVER (ORDER BY c.position), repeat('0', 64)) AS previous,
           c.position - coalesce(lag(c.position) OVER (ORDER BY c.position), 0) AS step
    FROM audit_chain c LEFT JOIN audit_log a ON a.seq = c.seq) l
  WHERE prev_hash <> previous OR NOT intact OR step <> 1
  ORDER BY position`;

/** audit_log rows that are neither linked into the chain nor waiting for the sealer. */
export const STRAY_ROWS = `
  SELECT a.seq FROM audit_log a
  WHERE NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.seq = a.seq) AND NOT EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.seq = a.seq)
  ORDER BY a.seq`;
