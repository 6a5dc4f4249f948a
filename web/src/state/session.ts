import { computed, signal } from '@preact/signals';
import { ApiError, type Session, refreshAccount, renewSession } from '../api';

/**
 * The signed-in person, kept in localStorage so that every tab and a reload stay signed in
 * until the token expires; while the person is active the token is renewed before it does
 * (renewWhileActive). The policy (script-src 'self', no inline script) is what keeps other
 * scripts from reading it. Sign-out in one tab signs out all of them.
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

/** A renewal is due this long before the token expires (or half its lifetime, for a short one). */
const RENEW_BEFORE_MS = 5 * 60_000;
/** Someone who has not touched the page for this long is away: their session is left to expire. */
const IDLE_AFTER_MS = 15 * 60_000;
let lastActivity = 0;

function renewalWindow(current: Session): number {
  return current.issuedAt ? Math.min(RENEW_BEFORE_MS, (current.expiresAt - current.issuedAt) / 2) : RENEW_BEFORE_MS;
}

/**
 * Whether the session is well past the point where an active person's renews: they have been
 * away, or the sign-in reached the server's cap. Only then does the header show the time left.
 */
export const ending = computed(() => {
  const current = session.value;
  return !!current && current.expiresAt - now.value <= renewalWindow(current) / 2;
});
let renewing = false;

/**
 * Renews the token (POST /auth/refresh) when it is near its end and the person has used the
 * page since it was issued and within IDLE_AFTER_MS: someone at work is never signed out under
 * their hands, someone who walked away is. The server caps renewal (SESSION_MAX_AGE after the
 * sign-in); its refusal, like a changed password's, signs out with the reason.
 */
async function renewWhileActive(): Promise<void> {
  const current = session.value;
  const at = Date.now();
  if (!current || renewing || current.expiresAt <= at) return;
  const active = lastActivity > (current.issuedAt ?? 0) && at - lastActivity < IDLE_AFTER_MS;
  if (!active || current.expiresAt - at > renewalWindow(current)) return;
  renewing = true;
  try {
    const renewed = await renewSession(current);
    if (session.value?.token === current.token) signIn(renewed);
  } catch (error) {
    // Anything but a 401 (offline, a 5xx) is tried again at the next tick or touch.
    handledAuthFailure(error);
  } finally {
    renewing = false;
  }
}

for (const type of ['pointerdown', 'keydown', 'input', 'wheel'] as const) {
  window.addEventListener(
    type,
    () => {
      lastActivity = Date.now();
      void renewWhileActive();
    },
    { capture: true, passive: true },
  );
}
setInterval(() => void renewWhileActive(), 10_000);

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
