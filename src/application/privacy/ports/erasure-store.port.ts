import type { ErasureCounts, ErasureStamp } from '../../../domain/privacy/erasure';

/**
 * Erases a person's data everywhere Bridle keeps it, in one transaction each: audit rows keep
 * their links (their personal fields are emptied, their commitment kept), everything else is
 * deleted or emptied. Null when the account or lead does not exist (for that owner).
 */
export abstract class ErasureStore {
  abstract eraseAccount(userId: string, stamp: ErasureStamp): Promise<ErasureCounts | null>;
  /** @param ownerId the campaign's owner the caller must be; null for an admin. */
  abstract eraseLead(campaignId: string, leadId: string, ownerId: string | null, stamp: ErasureStamp): Promise<ErasureCounts | null>;
  /**
   * Every lead with this email key (of the owner's campaigns, or all for an admin: ownerId
   * null), and every mention of the address in audit rows, messages and the rest.
   */
  abstract eraseByEmail(emailKey: string, ownerId: string | null, stamp: ErasureStamp): Promise<ErasureCounts>;
}
