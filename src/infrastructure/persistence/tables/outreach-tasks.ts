import { raw } from '../sql';

/**
 * The open statuses of an outreach task. AwaitingReview is open: its draft waits for a person,
 * and it keeps the lead's later steps and the campaign waiting.
 */
export const OPEN = raw(`('Pending', 'InProgress', 'AwaitingReview')`);
