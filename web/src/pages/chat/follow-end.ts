/**
 * How far below what the person sees the newest message ends, in pixels (negative: in view).
 * The thread scrolls in its own box on a wide screen; on a phone it is as tall as its messages
 * and the page scrolls, under a header and above a composer that both stay on screen.
 */
export function distanceToEnd(thread: HTMLElement, composer: HTMLElement): number {
  const inBox = thread.scrollHeight - thread.scrollTop - thread.clientHeight;
  const last = thread.lastElementChild;
  const onPage = last ? last.getBoundingClientRect().bottom - visibleBottom(composer) : 0;
  return Math.max(inBox, onPage);
}

const visibleBottom = (composer: HTMLElement) => Math.min(window.innerHeight, composer.getBoundingClientRect().top);

/** Scrolls the thread's box, then the page, so that the newest message ends just above the composer. */
export function revealEnd(thread: HTMLElement, composer: HTMLElement): void {
  thread.scrollTop = thread.scrollHeight;
  const last = thread.lastElementChild;
  if (!last) return;
  const below = last.getBoundingClientRect().bottom + 8 - visibleBottom(composer);
  if (below > 0) window.scrollBy({ top: below, behavior: 'instant' });
}
