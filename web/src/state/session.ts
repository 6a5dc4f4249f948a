import { computed, signal } from '@preact/signals';
import { ApiError, type Session, refreshAccount } from '../api';

/**
 * The signed-in person, kept in localStorage so that every tab and a reload stay signed in
 * until the token expires. The policy (script-src 'self', no inline script) is what keeps
 * other scripts from reading it. Sign-out in one tab signs out all of them.
 */
const KEY = 'bridle.session';

function stored(): Session | null {
  try {
    const session = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Session | null;
    return session && typeof session.expiresAt === 'number' && session.expiresAt > Date.now() ? session : null;
  } catch {
    return null;
  }
}

export const session = signal<Session | null>(stored());
/** Why the person was signed out, shown on the sign-in page. */
export const signOutNotice = signal<string | null>(null);
/** Ticks every 30 s: what shows the time left re-renders with it. */
export const now = signal(Date.now());
export const minutesLeft = computed(() => (session.value ? Math.max(0, Math.ceil((session.value.expiresAt - now.value) / 60_000)) : 0));

export function signIn(next: Session): void {
  localStorage.setItem(KEY, JSON.stringify(next));
  signOutNotice.value = null;
  session.value = next;
}

export function signOut(notice: string | null = null): void {
  localStorage.removeItem(KEY);
  signOutNotice.value = notice;
  session.value = null;
}

/** The session of a signed-in page: they render only while there is one. */
export function currentSession(): Session {
  const current = session.value;
  if (!current) throw new Error('No session: this page renders only for a signed-in person');
  return current;
}

/**
 * What a page does with a failed request: a 401 (expired, revoked, password changed
 * elsewhere) signs out with the reason; anything else is the caller's to show. Returns
 * whether it was handled.
 */
export function handledAuthFailure(error: unknown): boolean {
  // A wrong password (AUTH.INVALID_CREDENTIALS) is a 401 too, but ends no session.
  if (error instanceof ApiError && error.status === 401 && error.code !== 'AUTH.INVALID_CREDENTIALS') {
    signOut(error.message || 'Your session has ended. Please sign in again.');
    return true;
  }
  return false;
}

setInterval(() => {
  now.value = Date.now();
  if (session.value && session.value.expiresAt <= now.value) signOut('Your session has ended. Please sign in again.');
}, 30_000);

window.addEventListener('storage', (event) => {
  if (event.key === KEY) session.value = stored();
});

/**
 * On start: is the stored token still good (not revoked, not from before a password
 * change), and is the role still the same? Signs out, saying why, when it is not.
 */
export async function checkSession(): Promise<void> {
  const stored = session.value;
  if (!stored) return;
  try {
    const fresh = await refreshAccount(stored);
    if (session.value?.token === stored.token) signIn(fresh);
  } catch (error) {
    handledAuthFailure(error);
  }
}
