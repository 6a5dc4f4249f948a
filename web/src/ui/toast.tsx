import { signal } from '@preact/signals';
import type { Tone } from './badge';

interface Toast {
  readonly id: number;
  readonly text: string;
  readonly tone: Tone;
}

const toasts = signal<readonly Toast[]>([]);
let next = 1;

/** A short note in the corner that goes away by itself ("Task deleted"). */
export function toast(text: string, tone: Tone = 'success', ms = 4000): void {
  const id = next++;
  toasts.value = [...toasts.value, { id, text, tone }];
  setTimeout(() => (toasts.value = toasts.value.filter((t) => t.id !== id)), ms);
}

/** The live region the toasts appear in: once, in the app shell. */
export function Toaster() {
  return (
    <div class="toaster" role="status" aria-live="polite">
      {toasts.value.map((t) => (
        <p key={t.id} class={`toast toast-${t.tone}`}>
          {t.text}
        </p>
      ))}
    </div>
  );
}
