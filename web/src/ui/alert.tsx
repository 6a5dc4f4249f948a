/** An error in place, announced to screen readers; nothing when there is none. */
export function Alert({ message, class: extra }: { message: string | null | false | undefined; class?: string }) {
  if (!message) return null;
  return (
    <p class={['error', extra].filter(Boolean).join(' ')} role="alert">
      {message}
    </p>
  );
}
