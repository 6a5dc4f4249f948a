import type { ToolArguments } from './tool-call-validation';

/** A destructive call waiting for the person's yes; single use, bound to everything below. */
export interface PendingAction {
  readonly id: string;
  readonly userId: string;
  readonly conversationId: string;
  readonly tool: string;
  /** Resolved to exact targets (task numbers), so "yes" acts on what was shown. */
  readonly arguments: ToolArguments;
  readonly prompt: string;
  readonly expiresAt: Date;
}

export const CONFIRMATION_TTL_MS = 10 * 60 * 1000;

export type ConfirmationReply = 'confirm' | 'cancel' | 'other';

const CONFIRM = /^(yes|y|yep|yeah|sure|ok|okay|confirm|confirmed|do it|go ahead)([ ,!.]+(delete|delete (it|them)|please|confirm|do it))?[ !.]*$/i;
const CANCEL = /^(no|n|nope|cancel|stop|don'?t|never ?mind|keep (it|them)|abort)([ ,!.]+(thanks|thank you|cancel|don'?t delete( it| them)?))?[ !.]*$/i;

/** "yes delete" / "yes" confirm, "no" / "cancel" cancel; anything else is a new request. */
export function interpretConfirmationReply(message: string): ConfirmationReply {
  const text = message.trim().replace(/\s+/g, ' ');
  if (CONFIRM.test(text)) return 'confirm';
  if (CANCEL.test(text)) return 'cancel';
  return 'other';
}

export function isExpired(action: PendingAction, now: Date): boolean {
  return action.expiresAt.getTime() <= now.getTime();
}

/** "Do you really want to delete 'Dentist'? Reply 'yes delete' to confirm." */
export function deletionPrompt(titles: readonly string[]): string {
  const quoted = titles.map((title) => `'${title}'`);
  const what =
    quoted.length === 1
      ? quoted[0]
      : `${quoted.length} tasks: ${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
  return `Do you really want to delete ${what}? Reply 'yes delete' to confirm.`;
}
