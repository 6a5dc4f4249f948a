import { z } from 'zod';
import type { SignedCheckpoint } from '../../../domain/audit/checkpoint';
import { raw, sql, type Statement } from '../sql';

/** `audit_checkpoints` (migrations 1766966400000, 1767981600000): one place for its columns, read and written. */
export const CHECKPOINT_COLUMNS = raw(`position, seq, head_hash, created_at, key_id, public_key, signature, tree_size, root_hash, note`);

export const CHECKPOINT_ROW = z
  .object({
    position: z.coerce.number().int(),
    seq: z.coerce.number().int(),
    head_hash: z.string(),
    created_at: z.coerce.date(),
    key_id: z.string(),
    public_key: z.string(),
    signature: z.string(),
    tree_size: z.coerce.number().int().nullable(),
    root_hash: z.string().nullable(),
    note: z.string().nullable(),
  })
  .transform((row): SignedCheckpoint => ({
    position: row.position,
    seq: row.seq,
    headHash: row.head_hash,
    createdAt: row.created_at,
    keyId: row.key_id,
    publicKey: row.public_key,
    signature: row.signature,
    tree:
      row.tree_size === null || row.root_hash === null || row.note === null
        ? null
        : { size: row.tree_size, rootHash: row.root_hash, note: row.note },
  }));

export function insertCheckpoint(signed: SignedCheckpoint): Statement {
  return sql`INSERT INTO audit_checkpoints (${CHECKPOINT_COLUMNS})
    VALUES (${signed.position}, ${signed.seq}, ${signed.headHash}, ${signed.createdAt}, ${signed.keyId}, ${signed.publicKey},
            ${signed.signature}, ${signed.tree?.size ?? null}, ${signed.tree?.rootHash ?? null}, ${signed.tree?.note ?? null})`;
}
