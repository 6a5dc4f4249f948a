import type { ComponentChildren } from 'preact';

/** What an empty place says: what goes here, and the first thing to do. */
export function EmptyState({ title, children, actions }: { title: string; children?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-text">{children}</div>}
      {actions && <div class="row empty-actions">{actions}</div>}
    </div>
  );
}
