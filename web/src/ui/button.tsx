import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger';

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'size'> & {
  variant?: ButtonVariant;
  size?: 'sm' | 'md';
  /** Shows a spinner and refuses clicks while the action runs. */
  busy?: boolean;
  children?: ComponentChildren;
};

/** The one button: a variant for its weight, `busy` while its action runs. */
export function Button({ variant = 'primary', size = 'md', busy = false, type = 'button', class: extra, children, ...rest }: Props) {
  return (
    <button
      {...rest}
      type={type}
      class={['btn', `btn-${variant}`, size === 'sm' ? 'btn-sm' : '', typeof extra === 'string' ? extra : ''].filter(Boolean).join(' ')}
      disabled={rest.disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
