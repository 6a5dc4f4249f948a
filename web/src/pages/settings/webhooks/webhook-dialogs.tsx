import type { Webhook } from '../../../api';
import { Button, Dialog } from '../../../ui';
import { SecretOnce } from '../secret-once';

/** A webhook's signing secret, shown this once, with how a receiver uses it. */
export function WebhookSecretOnce({ secret }: { secret: string }) {
  return (
    <SecretOnce secret={secret} label="Signing secret">
      it is shown only this once. Your receiver checks each delivery with it (<code>new Webhook(secret).verify(body, headers)</code>).
    </SecretOnce>
  );
}

/** A rotated secret, shown this once. */
export function NewSecretDialog({ secret, onClose }: { secret: string; onClose: () => void }) {
  return (
    <Dialog open title="The new secret" onClose={onClose} actions={<Button onClick={onClose}>Done</Button>}>
      <WebhookSecretOnce secret={secret} />
      <p class="muted">The old secret keeps signing beside it for a day, so your receiver can switch without missing a delivery.</p>
    </Dialog>
  );
}

export function DeleteWebhookDialog({ webhook, onDelete, onClose }: { webhook: Webhook; onDelete: () => void; onClose: () => void }) {
  return (
    <Dialog
      open
      role="alertdialog"
      title="Delete this webhook?"
      onClose={onClose}
      actions={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" onClick={onDelete}>
            Delete
          </Button>
        </>
      }
    >
      <p>Nothing more is sent to {webhook.url}; its delivery log goes with it.</p>
    </Dialog>
  );
}
