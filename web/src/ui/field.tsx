import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | null;
  /** Renders the control with the ids that tie it to its label, hint and error. */
  children: (control: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ComponentChildren;
  class?: string;
  /** The control's id, when something outside needs it (a generated one otherwise). */
  id?: string;
}

/** A labelled form control with an optional hint and error, announced to screen readers. */
export function Field({ label, hint, error, children, class: extra, id: given }: FieldProps) {
  const generated = useId();
  const id = given ?? generated;
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class={['field', extra].filter(Boolean).join(' ')}>
      <label for={id}>{label}</label>
      {children({ id, 'aria-describedby': described || undefined, 'aria-invalid': error ? true : undefined })}
      {hint && (
        <p id={`${id}-hint`} class="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

type InputProps = InputHTMLAttributes<HTMLInputElement> & { label: ComponentChildren; hint?: ComponentChildren; error?: string | null };

/** The common case: a labelled text input. */
export function TextField({ label, hint, error, class: extra, id, ...input }: InputProps) {
  return (
    <Field label={label} hint={hint} error={error} class={extra as string | undefined} id={id as string | undefined}>
      {(ids) => <input class="input" {...input} {...ids} />}
    </Field>
  );
}
