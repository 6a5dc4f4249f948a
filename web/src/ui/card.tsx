import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface CardProps {
  title?: ComponentChildren;
  /** The heading level of the title (2 by default). */
  level?: 2 | 3;
  actions?: ComponentChildren;
  children?: ComponentChildren;
  class?: string;
  /** A landmark name; a titled card is a region labelled by its title. */
  as?: 'section' | 'div' | 'aside';
}

/** A raised surface with an optional heading and actions. */
export function Card({ title, level = 2, actions, children, class: extra, as: Tag = 'section' }: CardProps) {
  const id = useId();
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <Tag class={['card', extra].filter(Boolean).join(' ')} aria-labelledby={title ? id : undefined}>
      {(title || actions) && (
        <header class="card-header">
          {title && (
            <Heading id={id} class="card-title">
              {title}
            </Heading>
          )}
          {actions && <div class="row">{actions}</div>}
        </header>
      )}
      {children}
    </Tag>
  );
}
