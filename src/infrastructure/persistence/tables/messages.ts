import { raw } from '../sql';

/**
 * The status of an answer whose turn is still running (or died): never shown, never replayed.
 * The turn's opening statement stores its answer so, its finishing statement or the chat
 * sweeper fills it in.
 */
export const IN_PROGRESS = 'in_progress';
export const IN_PROGRESS_STATUS = raw(`'${IN_PROGRESS}'`);
