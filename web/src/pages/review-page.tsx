import { useEffect, useState } from 'preact/hooks';
import {
  type Draft,
  type DraftEdits,
  type DraftReview,
  type EscalatedDraft,
  escalatedReview,
  listDrafts,
  listEscalatedDrafts,
  ownReview,
} from '../api';
import { errorText } from '../lib/errors';
import { TASK_KIND_LABELS, plural } from '../lib/labels';
import { timeAgo } from '../lib/time';
import { currentSession, handledAuthFailure, now } from '../state/session';
import { Alert, Badge, Button, Card, Dialog, EmptyState, Field, toast } from '../ui';

/**
 * The review queue: every action a campaign in a review mode drafted instead of sending.
 * Approve sends exactly what is shown (edited or not) at the next cycle; reject sends
 * nothing and cancels the task. Each decision carries the hash of what the person read,
 * so a draft that changed meanwhile is refused, never approved unseen. An admin also sees
 * the drafts a policy rule escalated to the admins, of every owner, and decides them the
 * same way in their owners' stead.
 */
export function ReviewPage() {
  const session = currentSession();
  const own = ownReview(session);
  const admin = session.role === 'admin';
  const [drafts, setDrafts] = useState<readonly Draft[] | null>(null);
  const [escalated, setEscalated] = useState<readonly EscalatedDraft[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function refresh() {
    try {
      const [own, queue] = await Promise.all([listDrafts(session), admin ? listEscalatedDrafts(session) : null]);
      setDrafts(own.items);
      // An admin's own escalated draft is among their own drafts already.
      setEscalated(queue && queue.items.filter((draft) => draft.ownerId !== session.userId));
      setError(null);
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
    }
  }

  useEffect(() => void refresh(), []);

  return (
    <div class="page-body narrow stack">
      <div class="spread">
        <h1>Review queue</h1>
        {drafts && <span class="muted">{plural(drafts.length, 'draft')} waiting</span>}
      </div>
      <p class="muted">
        Campaigns set to review before sending park each action here. Nothing reaches a lead until you approve it; approved actions run at
        the next cycle.
      </p>
      <Alert message={error} />
      {drafts === null ? (
        <p class="muted">Loading…</p>
      ) : drafts.length === 0 ? (
        <EmptyState title="Nothing waits for review.">
          <p>Set a campaign's review mode to “Every action” or “The first few of each kind” to see its drafts here.</p>
        </EmptyState>
      ) : (
        <ul class="plain stack review-list">
          {drafts.map((draft) => (
            <li key={draft.id}>
              <DraftCard draft={draft} review={own} onDone={refresh} />
            </li>
          ))}
        </ul>
      )}
      {escalated && <EscalatedDrafts drafts={escalated} onDone={refresh} />}
    </div>
  );
}

/** An admin's section: drafts their owners did not review in the time a policy rule gave them. */
function EscalatedDrafts({ drafts, onDone }: { drafts: readonly EscalatedDraft[]; onDone: () => Promise<void> }) {
  const session = currentSession();
  const review = escalatedReview(session);
  return (
    <section class="stack" aria-labelledby="escalated-heading">
      <div class="spread">
        <h2 id="escalated-heading">Escalated to admins</h2>
        <span class="muted">{plural(drafts.length, 'draft')} waiting</span>
      </div>
      <p class="muted">
        A policy rule gave these to the admins: their owners did not review them in time. You decide one in its owner's stead, and the audit
        log names you as its reviewer; undecided, it is rejected when it expires.
      </p>
      {drafts.length === 0 ? (
        <p class="muted">No draft is escalated to the admins.</p>
      ) : (
        <ul class="plain stack review-list">
          {drafts.map((draft) => (
            <li key={draft.id}>
              <DraftCard draft={draft} owner={draft.ownerEmail ?? 'a deleted account'} review={review} onDone={onDone} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

interface DraftCardProps {
  readonly draft: Draft;
  readonly review: DraftReview;
  /** Whose draft an admin decides in the owner's stead; absent for the person's own. */
  readonly owner?: string;
  readonly onDone: () => Promise<void>;
}

function DraftCard({ draft, review, owner, onDone }: DraftCardProps) {
  const [text, setText] = useState(draft.text ?? '');
  const [subject, setSubject] = useState(draft.subject ?? '');
  const [busy, setBusy] = useState<'approve' | 'reject' | null>(null);
  const [confirmReject, setConfirmReject] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const kind = TASK_KIND_LABELS[draft.task.type];
  const edits: DraftEdits | undefined =
    draft.action === 'linkedin_send_message' && text !== draft.text
      ? { message: text }
      : draft.action === 'send_email' && (text !== draft.text || subject !== draft.subject)
        ? { ...(subject !== draft.subject && { subject }), ...(text !== draft.text && { body: text }) }
        : undefined;
  void now.value;

  async function decide(which: 'approve' | 'reject') {
    setBusy(which);
    setError(null);
    setConfirmReject(false);
    try {
      if (which === 'approve') await review.approve(draft, edits);
      else await review.reject(draft);
      toast(which === 'approve' ? `Approved: ${kind} for ${draft.lead.name}` : `Rejected: ${kind} for ${draft.lead.name}`);
      await onDone();
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
      setBusy(null);
    }
  }

  return (
    <Card
      title={`${kind} for ${draft.lead.name}`}
      level={owner === undefined ? 2 : 3}
      actions={
        <>
          {draft.escalatedAt && <Badge tone="info">Escalated to admins</Badge>}
          <Badge tone="warning">{`Expires ${timeAgo(draft.expiresAt)}`}</Badge>
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
        <Button busy={busy === 'approve'} disabled={busy !== null} onClick={() => void decide('approve')}>
          {edits ? 'Save and approve' : 'Approve'}
        </Button>
        <Button variant="secondary" disabled={busy !== null} onClick={() => setConfirmReject(true)}>
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
            <Button variant="danger" onClick={() => void decide('reject')}>
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
