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

/** The page the URL's hash names (#campaigns…); chat when it names none. */
export const route = computed<PageName>(() => {
  const name = hash.value.slice(1).replace(/^\//, '').split('?')[0];
  return name in PAGES ? (name as PageName) : 'chat';
});

/** The hash's query (`#/authorize?request=<id>` → request). */
export const routeParams = computed(() => new URLSearchParams(hash.value.split('?')[1] ?? ''));

window.addEventListener('hashchange', () => {
  hash.value = location.hash;
});
