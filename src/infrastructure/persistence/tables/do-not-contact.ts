import { z } from 'zod';
import { DO_NOT_CONTACT_KINDS, type DoNotContactEntry } from '../../../domain/outreach/do-not-contact';
import type { ErasedAddressKey } from '../../security/erased-address-key';
import { sql, type Statement } from '../sql';

/**
 * Do-not-contact entries an erasure touched (docs/decisions/0017-erasure-and-retention.md): their
 * value is `hmac-sha256:` and the hex HMAC of the canonical value under ErasedAddressKey. No
 * canonical address or profile URL starts so (an address's local part holds no colon).
 */
export const ERASED_PREFIX = 'hmac-sha256:';

/** An entry as its owner reads it: an erased one has no value to show. */
export const DO_NOT_CONTACT_ROW = z
  .object({ id: z.string(), kind: z.enum(DO_NOT_CONTACT_KINDS), value: z.string(), created_at: z.date() })
  .transform((row): DoNotContactEntry => ({
    id: row.id,
    kind: row.kind,
    value: row.value.startsWith(ERASED_PREFIX) ? null : row.value,
    createdAt: row.created_at,
  }));

/** The erased form of the text `value` (a canonical email key or profile URL), computed in SQL. */
export function erasedForm(key: ErasedAddressKey, value: Statement): Statement {
  const { inner, outer } = key.pads();
  return sql`(${ERASED_PREFIX}::text || encode(sha256(decode(${outer}::text, 'hex')
    || sha256(decode(${inner}::text, 'hex') || convert_to(${value}, 'UTF8'))), 'hex'))`;
}

/**
 * The lead's values (its canonical profile URL, its email key) that its campaign owner's
 * do-not-contact list holds, plainly or erased: what the outreach checks compare with.
 */
export function listedValues(key: ErasedAddressKey, owner: Statement, url: Statement, emailKey: Statement): Statement {
  return sql`ARRAY(SELECT v.value FROM (VALUES (${url}), (${emailKey})) v (value)
    WHERE v.value IS NOT NULL AND EXISTS (SELECT 1 FROM do_not_contact n
      WHERE n.owner_id = ${owner} AND n.value IN (v.value, ${erasedForm(key, sql`v.value`)})))::text[]`;
}

/**
 * Replaces every entry, on anyone's list, whose value is one of `values` (canonical) by its
 * erased form; an entry whose erased form the same list already holds is deleted instead.
 * @param within only this person's list (an owner's own erasure); null: every list (an admin's).
 * @returns the statements, to run in order; their changed rows add up to the entries erased.
 */
export function eraseListedValues(key: ErasedAddressKey, values: readonly string[], within: string | null = null): Statement[] {
  return [
    sql`DELETE FROM do_not_contact d WHERE d.value = ANY(${values}::text[]) AND (${within}::uuid IS NULL OR d.owner_id = ${within}::uuid)
          AND EXISTS (SELECT 1 FROM do_not_contact e WHERE e.owner_id = d.owner_id AND e.value = ${erasedForm(key, sql`d.value`)})`,
    sql`UPDATE do_not_contact SET value = ${erasedForm(key, sql`value`)}
          WHERE value = ANY(${values}::text[]) AND (${within}::uuid IS NULL OR owner_id = ${within}::uuid)`,
  ];
}
