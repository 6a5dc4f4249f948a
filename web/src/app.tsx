import { signal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { SignInPage } from './pages/sign-in/sign-in-page';
import { ADMIN_PAGES, PAGES, type PageName, route } from './state/route';
import { ending, minutesLeft, session, signOut } from './state/session';
import { listenForTaskChanges } from './state/task-events';
import { Button, Toaster } from './ui';
import { clockTime } from './lib/time';

/** Signed out: the sign-in page. Signed in: the shell with the page the hash names. */
export function App() {
  const current = session.value;
  const page: PageName = ADMIN_PAGES.includes(route.value) && current?.role !== 'admin' ? 'chat' : route.value;
  useEffect(() => {
    document.title = current ? `${PAGES[page]} · Bridle` : 'Sign in · Bridle';
  }, [current, page]);
  // Keyed on the token: a session refreshed with the same token (its role re-read) keeps the channel open.
  const token = current?.token;
  useEffect(() => (current ? listenForTaskChanges(current) : undefined), [token]);
  return (
    <>
      {current ? (
        <>
          <Header page={page} />
          <Page name={page} />
        </>
      ) : (
        <SignInPage />
      )}
      <Toaster />
    </>
  );
}

/**
 * Each page is its own chunk, loaded when first shown: the first screen runs only the shell
 * and the page it shows (the admin pages' code never reaches a person who is not an admin).
 */
const PAGE_CODE: Record<PageName, () => Promise<ComponentType>> = {
  chat: () => import('./pages/chat/chat-page').then((m) => m.ChatPage),
  campaigns: () => import('./pages/campaigns/campaigns-page').then((m) => m.CampaignsPage),
  review: () => import('./pages/review/review-page').then((m) => m.ReviewPage),
  audit: () => import('./pages/audit/audit-page').then((m) => m.AuditPage),
  policy: () => import('./pages/policy/policy-page').then((m) => m.PolicyPage),
  settings: () => import('./pages/settings/settings-page').then((m) => m.SettingsPage),
  activity: () => import('./pages/activity/activity-page').then((m) => m.ActivityPage),
  authorize: () => import('./pages/authorize/authorize-page').then((m) => m.AuthorizePage),
};
const loaded = signal<Partial<Record<PageName, ComponentType>>>({});
const failedToLoad = signal(false);

function load(name: PageName): void {
  PAGE_CODE[name]().then(
    (component) => (loaded.value = { ...loaded.value, [name]: component }),
    () => (failedToLoad.value = true),
  );
}

function Page({ name }: { name: PageName }) {
  const main = useRef<HTMLElement>(null);
  const Component = loaded.value[name];
  // A page the person moved to takes the focus to its main heading, so keyboard and
  // screen-reader users start there (not the first page: the browser starts at the top).
  const moved = useRef(false);
  const shownName = useRef(name);
  if (shownName.current !== name) {
    shownName.current = name;
    moved.current = true;
  }
  useEffect(() => {
    if (!Component) return load(name);
    if (!moved.current) return;
    moved.current = false;
    const heading = main.current?.querySelector<HTMLElement>('h1');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [name, Component]);
  return (
    <main ref={main} id={name} class={`page page-${name}`}>
      {Component ? (
        <Component />
      ) : failedToLoad.value ? (
        <p class="page-body error" role="alert">
          This page could not be loaded. Check your connection and reload.
        </p>
      ) : (
        <p class="page-body muted">Loading…</p>
      )}
    </main>
  );
}

function Header({ page }: { page: PageName }) {
  const current = session.value!;
  const link = (name: PageName) => (
    <a href={`#${name}`} class="nav-link" aria-current={page === name ? 'page' : undefined}>
      {name === 'audit' ? 'Audit' : name === 'review' ? 'Review' : PAGES[name]}
    </a>
  );
  const left = minutesLeft.value;
  return (
    <header class="app-header">
      <a class="brand" href="#chat" aria-label="Bridle, chat">
        <img src="/favicon.svg" alt="" width="24" height="24" />
        <span>Bridle</span>
      </a>
      <nav aria-label="Main" class="nav">
        {link('chat')}
        {link('campaigns')}
        {link('review')}
        {current.role === 'admin' && link('audit')}
        {current.role === 'admin' && link('policy')}
        {link('settings')}
      </nav>
      <div class="who">
        <span class="who-email" title={current.email}>
          {current.email}
        </span>
        {/* While the person is active the session renews itself (state/session.ts): the time left shows only once it will not. */}
        {ending.value && (
          <span class="session-left soon" title={`Your session ends at ${clockTime(current.expiresAt)}`}>
            {left <= 1 ? 'Session ends in a minute' : `Session ends in ${left} min`}
          </span>
        )}
      </div>
      <Button variant="secondary" size="sm" onClick={() => signOut()}>
        Sign out
      </Button>
    </header>
  );
}
