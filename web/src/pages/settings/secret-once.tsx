import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { Button, Field, toast } from '../../ui';

/**
 * A secret shown this once (an access token, a webhook's signing secret): copy it, or select it
 * when the clipboard is refused. `children` says what it is for, after "Copy it now:".
 */
export function SecretOnce({ secret, label, children }: { secret: string; label: string; children: ComponentChildren }) {
  const field = useRef<HTMLInputElement>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      toast('Copied.');
    } catch {
      field.current?.select();
      toast('Selected: copy it with your keyboard.');
    }
  }

  return (
    <div class="stack">
      <p class="notice warning" role="status">
        <strong>Copy it now:</strong> {children}
      </p>
      <Field label={label}>
        {(ids) => <input ref={field} class="input mono" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} {...ids} />}
      </Field>
      <div>
        <Button variant="secondary" onClick={() => void copy()}>
          Copy
        </Button>
      </div>
    </div>
  );
}

/** The actions of a dialog that makes something with a secret: Cancel and the form's submit `children`, then Done once the secret shows. */
export function SecretDialogActions({
  secret,
  onClose,
  children,
}: {
  secret: string | null;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return secret ? (
    <Button onClick={onClose}>Done</Button>
  ) : (
    <>
      <Button variant="secondary" onClick={onClose}>
        Cancel
      </Button>
      {children}
    </>
  );
}
