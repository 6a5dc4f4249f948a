import { signal } from '@preact/signals';

export const PAGES = {
  chat: 'Chat',
  campaigns: 'Campaigns',
  review: 'Review queue',
  audit: 'Audit log',
  settings: 'Settings',
} as const;
export type PageName = keyof typeof PAGES;

const fromHash = (): PageName => {
  const name = location.hash.slice(1);
  return name in PAGES ? (name as PageName) : 'chat';
};

/** The page the URL's hash names (#campaigns…); chat when it names none. */
export const route = signal<PageName>(fromHash());

window.addEventListener('hashchange', () => {
  route.value = fromHash();
});
