import { useState } from 'preact/hooks';
import { type Campaign, updateCampaign } from '../../api';
import { useAction } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Button, Card, Field, TextField, toast } from '../../ui';

type Mode = Campaign['approvalMode'];
const MODES: Record<Mode, string> = {
  none: 'Send once checked (no review)',
  first_n: 'Review the first few of each kind',
  all: 'Review every action',
};
const BRIEF_FIELDS = [
  ['offer', 'Offer', 'What you propose, in a sentence'],
  ['tone', 'Tone', 'e.g. warm and brief'],
  ['callToAction', 'Call to action', 'e.g. a 15-minute call next week'],
  ['senderName', 'Sender name', ''],
] as const;

/** How the campaign writes (its brief) and whether a person reviews its actions first. */
export function CampaignSettings({ campaign, onSaved }: { campaign: Campaign; onSaved: () => Promise<void> }) {
  const session = currentSession();
  const [mode, setMode] = useState<Mode>(campaign.approvalMode);
  const [firstN, setFirstN] = useState(String(campaign.approvalFirstN));
  const [brief, setBrief] = useState({ ...campaign.brief });
  const { busy, error, run } = useAction<'save'>();
  const text = (value: string | null) => value ?? '';
  const orNull = (value: string | null) => (value && value.trim() !== '' ? value.trim() : null);
  // A completed campaign no longer changes (the API refuses it): its settings show, read-only.
  const completed = campaign.status === 'completed';

  function save(event: SubmitEvent) {
    event.preventDefault();
    void run('save', async () => {
      await updateCampaign(session, campaign.id, {
        approvalMode: mode,
        ...(mode === 'first_n' && { approvalFirstN: Number(firstN) }),
        brief: {
          offer: orNull(brief.offer),
          tone: orNull(brief.tone),
          callToAction: orNull(brief.callToAction),
          senderName: orNull(brief.senderName),
          signature: orNull(brief.signature),
        },
      });
      toast('Campaign settings saved');
      await onSaved();
    });
  }

  return (
    <Card title="Brief and review" level={3}>
      <form class="stack" onSubmit={save}>
        <fieldset class="plain-fieldset stack" disabled={completed}>
          <div class="settings-grid">
            <Field label="Review before sending" id={`mode-${campaign.id}`}>
              {(ids) => (
                <select {...ids} class="input" value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)}>
                  {(Object.keys(MODES) as Mode[]).map((value) => (
                    <option key={value} value={value}>
                      {MODES[value]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {mode === 'first_n' && (
              <TextField
                label="How many of each kind"
                id={`first-n-${campaign.id}`}
                type="number"
                min={1}
                max={1000}
                required
                value={firstN}
                onInput={(e) => setFirstN(e.currentTarget.value)}
              />
            )}
            {BRIEF_FIELDS.map(([key, label, placeholder]) => (
              <TextField
                key={key}
                label={label}
                id={`${key}-${campaign.id}`}
                placeholder={placeholder}
                value={text(brief[key])}
                onInput={(e) => setBrief({ ...brief, [key]: e.currentTarget.value })}
              />
            ))}
          </div>
          <Field label="Signature" id={`signature-${campaign.id}`}>
            {(ids) => (
              <textarea
                {...ids}
                class="input"
                rows={2}
                value={text(brief.signature)}
                onInput={(e) => setBrief({ ...brief, signature: e.currentTarget.value })}
              />
            )}
          </Field>
        </fieldset>
        <Alert message={error} />
        {!completed && (
          <div class="row">
            <Button type="submit" variant="secondary" busy={busy === 'save'}>
              Save settings
            </Button>
          </div>
        )}
      </form>
    </Card>
  );
}
