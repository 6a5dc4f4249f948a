import { useRef } from 'preact/hooks';
import { Button, Field, toast } from '../../../ui';

/** A signing secret, shown this once: copy it, or select it when the clipboard is refused. */
export function SecretOnce({ secret }: { secret: string }) {
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
        <strong>Copy it now:</strong> it is shown only this once. Your receiver checks each delivery with it (
        <code>new Webhook(secret).verify(body, headers)</code>).
      </p>
      <Field label="Signing secret">
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
