import { useState } from 'preact/hooks';
import type { Draft, DraftEdits, DraftReview } from '../../api';
import { draftExpired } from '../../lib/holds';
import { taskKindLabel } from '../../lib/labels';
import { timeAgo } from '../../lib/time';
import { useAction } from '../../lib/use-resource';
import { now } from '../../state/session';
import { Alert, Badge, Button, Card, Dialog, Field, toast } from '../../ui';

export interface DraftCardProps {
  readonly draft: Draft;
  readonly review: DraftReview;
  /** Whose draft an admin decides in the owner's stead; absent for the person's own. */
  readonly owner?: string;
  readonly onDone: () => Promise<void>;
}

/** One draft to decide: its text to edit, Approve, and Reject after a confirmation. */
export function DraftCard({ draft, review, owner, onDone }: DraftCardProps) {
  const [text, setText] = useState(draft.text ?? '');
  const [subject, setSubject] = useState(draft.subject ?? '');
  const { busy, error, run } = useAction<'approve' | 'reject'>();
  const [confirmReject, setConfirmReject] = useState(false);
  const kind = taskKindLabel(draft.task.type);
  const edits: DraftEdits | undefined =
    draft.action === 'linkedin_send_message' && text !== draft.text
      ? { message: text }
      : draft.action === 'send_email' && (text !== draft.text || subject !== draft.subject)
        ? { ...(subject !== draft.subject && { subject }), ...(text !== draft.text && { body: text }) }
        : undefined;
  // Past its time nobody may decide it any more: it expired undecided (the sweep closes it).
  const expired = draftExpired(draft, now.value);

  function decide(which: 'approve' | 'reject') {
    setConfirmReject(false);
    void run(which, async () => {
      if (which === 'approve') await review.approve(draft, edits);
      else await review.reject(draft);
      toast(which === 'approve' ? `Approved: ${kind} for ${draft.lead.name}` : `Rejected: ${kind} for ${draft.lead.name}`);
      await onDone();
    });
  }

  return (
    <Card
      title={`${kind} for ${draft.lead.name}`}
      level={owner === undefined ? 2 : 3}
      actions={
        <>
          {draft.escalatedAt && <Badge tone="info">Escalated to admins</Badge>}
          <Badge tone="warning">{expired ? 'Expired' : `Expires ${timeAgo(draft.expiresAt)}`}</Badge>
        </>
      }
      class="draft"
    >
      <p class="muted small">
        {owner !== undefined && <>{owner}’s · </>}
        {draft.campaign.name} · drafted {timeAgo(draft.createdAt)} · to {draft.recipient}
      </p>
      {draft.action === 'send_email' && (
        <Field label="Subject" id={`subject-${draft.id}`}>
          {(ids) => <input {...ids} class="input" value={subject} maxLength={200} onInput={(e) => setSubject(e.currentTarget.value)} />}
        </Field>
      )}
      {draft.action === 'linkedin_scrape_profile' ? (
        <p>Look up the profile at {draft.recipient}.</p>
      ) : (
        <Field label={draft.action === 'send_email' ? 'Email body' : 'Message'} id={`text-${draft.id}`}>
          {(ids) => <textarea {...ids} class="input draft-text" rows={6} value={text} onInput={(e) => setText(e.currentTarget.value)} />}
        </Field>
      )}
      <p class="muted small">Why: {draft.reason}</p>
      <Alert message={error} />
      <div class="row">
        <Button busy={busy === 'approve'} disabled={busy !== null || expired} onClick={() => decide('approve')}>
          {edits ? 'Save and approve' : 'Approve'}
        </Button>
        <Button variant="secondary" disabled={busy !== null || expired} onClick={() => setConfirmReject(true)}>
          Reject
        </Button>
      </div>
      <Dialog
        open={confirmReject}
        role="alertdialog"
        title={`Reject this ${kind.toLowerCase()}?`}
        onClose={() => setConfirmReject(false)}
        actions={
          <>
            <Button variant="danger" onClick={() => decide('reject')}>
              Reject
            </Button>
            <Button variant="secondary" onClick={() => setConfirmReject(false)}>
              Keep it
            </Button>
          </>
        }
      >
        <p>It is never sent, its task is cancelled and its quota slot is given back.</p>
      </Dialog>
    </Card>
  );
}
