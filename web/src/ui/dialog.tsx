import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface DialogProps {
  open: boolean;
  title: string;
  children?: ComponentChildren;
  /** The buttons; the first one gets the focus when the dialog opens. */
  actions: ComponentChildren;
  /** Escape, or a click outside the box. */
  onClose: () => void;
  role?: 'dialog' | 'alertdialog';
  /** A box in the middle, or a panel along the right edge (details beside a list). */
  placement?: 'center' | 'side';
}

/**
 * A modal dialog on the native <dialog> element: the browser traps the focus, Escape closes
 * it, and the page behind it is inert.
 */
export function Dialog({ open, title, children, actions, onClose, role = 'dialog', placement = 'center' }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>('.dialog-actions button')?.focus();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class={`dialog dialog-${placement}`}
      role={role}
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      {open && (
        <div class="dialog-box">
          <h2 id={`${id}-title`} class="dialog-title">
            {title}
          </h2>
          {children && <div class="dialog-body">{children}</div>}
          <div class="dialog-actions row">{actions}</div>
        </div>
      )}
    </dialog>
  );
}
