import { getNotificationPreferences, type NotificationEvent, updateNotificationPreferences } from '../../api';
import { useAction, useResource } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Card } from '../../ui';

/** Each event in a person's words; an event a newer server has that is missing here shows by its own name. */
const EVENT_WORDS: Record<NotificationEvent, string> = {
  'draft.awaiting_review': 'A draft waits for my review',
  'draft.escalated': 'A draft went to the admins because nobody decided it in time',
  'draft.expired': 'A draft expired: nobody decided it in time',
  'confirmation.waiting': 'An app connected over MCP needs my yes in the console',
  'campaign.paused': 'A campaign was paused',
  'campaign.finished': 'A campaign finished',
  'policy.stored': 'An admin stored a new policy version',
  'budget.threshold': 'My spending passed a threshold of my budget',
  'webhook.disabled': 'Bridle stopped delivering to a webhook of mine',
};

/** A checkbox per event that can reach the person: checked, it comes by email. Each change is saved at once. */
export function EmailNotifications() {
  const session = currentSession();
  const { data: preferences, error, set } = useResource(() => getNotificationPreferences(session), [session.token]);
  const saving = useAction<NotificationEvent>();

  /** Shown as chosen at once (a checkbox that waited for the server would seem not to take the click), put back if saving fails. */
  async function choose(event: NotificationEvent, on: boolean) {
    const before = preferences;
    if (!before) return;
    set({ ...before, email: { ...before.email, [event]: on } });
    if (!(await saving.run(event, async () => set(await updateNotificationPreferences(session, { [event]: on }))))) set(before);
  }

  const events = preferences ? (Object.keys(preferences.email) as NotificationEvent[]) : [];
  return (
    <Card title="Email notifications">
      <div class="stack">
        <Alert message={error ?? saving.error} />
        {preferences === undefined && !error && <p class="muted">Loading…</p>}
        {preferences && !preferences.emailDelivered && (
          <p class="muted">This server sends no email (it has no SMTP server set up): your choices apply once it does.</p>
        )}
        {preferences && (
          <fieldset class="plain-fieldset stack">
            <legend>Email me when</legend>
            {events.map((event) => (
              <label key={event} class="row consent-scope">
                <input
                  type="checkbox"
                  checked={preferences.email[event] === true}
                  disabled={saving.busy !== null}
                  onChange={(e) => void choose(event, e.currentTarget.checked)}
                />
                <span>{EVENT_WORDS[event] ?? event}</span>
              </label>
            ))}
          </fieldset>
        )}
        <p class="muted">
          At most one mail every few minutes: what happens meanwhile comes together in the next one. Links in a mail only open the console;
          nothing is decided until you decide it there.
        </p>
      </div>
    </Card>
  );
}
