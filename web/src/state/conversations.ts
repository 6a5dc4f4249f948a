import { signal } from '@preact/signals';
import { type Conversation, type Session, listConversations } from '../api';
import { handledAuthFailure } from './session';

/**
 * The person's conversations, newest activity first, as the chat's list shows them: the chat
 * reloads them after each turn, the list reads the older pages on request.
 */
export const conversations = signal<readonly Conversation[]>([]);
export const olderCursor = signal<string | null>(null);
let generation = 0;

/** The 20 most recently active conversations (`fresh`), or the next older page below them. */
export async function refreshConversations(session: Session, fresh = true): Promise<void> {
  // An older page that arrives after the list was reloaded from the top is dropped.
  const mine = fresh ? ++generation : generation;
  try {
    const page = await listConversations(session, fresh ? null : olderCursor.value);
    if (mine !== generation) return;
    conversations.value = fresh ? page.items : [...conversations.value, ...page.items];
    olderCursor.value = page.nextCursor;
  } catch (error) {
    handledAuthFailure(error);
  }
}
