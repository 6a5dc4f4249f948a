import { computed, signal } from '@preact/signals';

export const PAGES = {
  chat: 'Chat',
  campaigns: 'Campaigns',
  review: 'Review queue',
  audit: 'Audit log',
  policy: 'Policy',
  settings: 'Settings',
  activity: 'Your activity',
  authorize: 'Allow access',
} as const;
export type PageName = keyof typeof PAGES;
/** The pages for admins only: anyone else asking for one by its address gets the chat (the API refuses them anyway). */
export const ADMIN_PAGES: readonly PageName[] = ['audit', 'policy'];

/** The hash as a page and its parameters: `#campaigns`, `#/authorize?request=<id>`. */
const hash = signal(location.hash);

const named = computed(() => hash.value.slice(1).replace(/^\//, '').split('?')[0]);

/** Whether the hash names a page: a link to one, which signing in leads on to. */
export const routeNamesPage = computed(() => Object.hasOwn(PAGES, named.value));

/** The page the URL's hash names (#campaigns…); chat when it names none. */
export const route = computed<PageName>(() => (routeNamesPage.value ? (named.value as PageName) : 'chat'));

/** The hash's query (`#/authorize?request=<id>` → request). */
export const routeParams = computed(() => new URLSearchParams(hash.value.split('?')[1] ?? ''));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A link's id parameter (`#review?draft=<id>`): a UUID, or null for anything else (missing,
 * overlong, not an id), which the page then ignores. Only read, never acted on: a link opens
 * and shows, and only the signed-in person's click decides anything.
 */
export function routeId(name: string): string | null {
  const value = routeParams.value.get(name);
  return value !== null && UUID.test(value) ? value.toLowerCase() : null;
}

/** A link's whole-number parameter (`#policy?version=<n>`): 0 to 1 000 000 000 written plainly, or null. */
export function routeNumber(name: string): number | null {
  const value = routeParams.value.get(name);
  return value !== null && /^(0|[1-9][0-9]{0,8})$/.test(value) ? Number(value) : null;
}

window.addEventListener('hashchange', () => {
  hash.value = location.hash;
});
