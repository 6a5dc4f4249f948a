import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  type Draft,
  type DraftEdits,
  type DraftReview,
  type EscalatedDraft,
  escalatedReview,
  getDraft,
  listDrafts,
  listEscalatedDrafts,
  ownReview,
} from '../api';
import { errorText } from '../lib/errors';
import { DRAFT_STATUS, draftExpired, draftOutcome } from '../lib/holds';
import { labelOf, plural, taskKindLabel } from '../lib/labels';
import { timeAgo } from '../lib/time';
import { routeId } from '../state/route';
import { currentSession, handledAuthFailure, now } from '../state/session';
import { Alert, Badge, Button, Card, Dialog, EmptyState, Field, toast } from '../ui';

/**
 * The review queue: every action a campaign in a review mode drafted instead of sending.
 * Approve sends exactly what is shown (edited or not) at the next cycle; reject sends
 * nothing and cancels the task. Each decision carries the hash of what the person read,
 * so a draft that changed meanwhile is refused, never approved unseen. An admin also sees
 * the drafts a policy rule escalated to the admins, of every owner, and decides them the
 * same way in their owners' stead.
 *
 * A link to a draft (`#review?draft=<id>`, a notification's) brings its card into view,
 * highlighted and focused; one that no longer waits says what became of it. Following the link
 * decides nothing: only the person's click on the card does.
 */
export function ReviewPage() {
  const session = currentSession();
  const own = ownReview(session);
  const admin = session.role === 'admin';
  const [drafts, setDrafts] = useState<readonly Draft[] | null>(null);
  const [escalated, setEscalated] = useState<readonly EscalatedDraft[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const linked = routeId('draft');
  const [elsewhere, setElsewhere] = useState<LinkedDraft | null>(null);

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

  // Read again when a link names another draft: it shows the queue as it is now.
  useEffect(() => void refresh(), [linked]);

  // The linked draft when neither queue holds it: read by its id, to say what became of it.
  const queued = (id: string) => !!drafts?.some((draft) => draft.id === id) || !!escalated?.some((draft) => draft.id === id);
  useEffect(() => {
    setElsewhere(null);
    if (!linked || drafts === null || queued(linked)) return;
    let current = true;
    getDraft(session, linked).then(
      (draft) => current && setElsewhere({ id: linked, draft }),
      (failure: unknown) => {
        if (!current || handledAuthFailure(failure)) return;
        setElsewhere({ id: linked, draft: null, error: failure instanceof ApiError && failure.status === 404 ? null : errorText(failure) });
      },
    );
    return () => {
      current = false;
    };
  }, [linked, drafts, escalated]);

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
      {elsewhere && <LinkedDraftNotice linked={elsewhere} review={own} onDone={refresh} />}
      {drafts === null ? (
        <p class="muted">Loading…</p>
      ) : drafts.length === 0 ? (
        <EmptyState title="Nothing waits for review.">
          <p>Set a campaign's review mode to “Every action” or “The first few of each kind” to see its drafts here.</p>
        </EmptyState>
      ) : (
        <ul class="plain stack review-list">
          {drafts.map((draft) => (
            <LinkedItem key={draft.id} id={draft.id} linked={linked}>
              <DraftCard draft={draft} review={own} onDone={refresh} />
            </LinkedItem>
          ))}
        </ul>
      )}
      {escalated && <EscalatedDrafts drafts={escalated} linked={linked} onDone={refresh} />}
    </div>
  );
}

/** A draft a link named that neither queue holds: read by its id (null when it is not the person's to read). */
interface LinkedDraft {
  readonly id: string;
  readonly draft: Draft | null;
  /** Why it could not be read, other than its not being found. */
  readonly error?: string | null;
}

/**
 * One draft of a queue; the one a link names (`linked`) is brought into view, highlighted and
 * focused, once, so that a keyboard or screen-reader user starts at it.
 */
function LinkedItem({ id, linked, children }: { id: string; linked: string | null; children: ComponentChildren }) {
  const item = useRef<HTMLLIElement>(null);
  const isLinked = id === linked;
  useEffect(() => {
    if (!isLinked) return;
    item.current?.scrollIntoView({ block: 'center' });
    item.current?.focus({ preventScroll: true });
  }, [isLinked]);
  return (
    <li ref={item} id={`draft-${id}`} class={isLinked ? 'linked-draft' : undefined} tabIndex={isLinked ? -1 : undefined}>
      {children}
    </li>
  );
}

/**
 * The linked draft that no longer waits in a queue: what became of it (approved, sent, rejected
 * by its reviewer, expired undecided), with its campaign, or that it was not found. One still
 * awaiting review past the queue's first page is shown to decide like any other.
 */
function LinkedDraftNotice({ linked, review, onDone }: { linked: LinkedDraft; review: DraftReview; onDone: () => Promise<void> }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { draft } = linked;
  const outcome = draft && draftOutcome(draft, now.value);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'center' });
    heading.current?.focus({ preventScroll: true });
  }, [linked.id]);
  if (draft && draft.status === 'awaiting_review' && !draftExpired(draft, now.value)) {
    return (
      <ul class="plain stack review-list">
        <LinkedItem id={draft.id} linked={draft.id}>
          <DraftCard draft={draft} review={review} onDone={onDone} />
        </LinkedItem>
      </ul>
    );
  }
  const status = draft && (draftExpired(draft, now.value) ? DRAFT_STATUS.expired : labelOf(DRAFT_STATUS, draft.status));
  return (
    <section class="notice linked-outcome stack" aria-labelledby="linked-outcome-title" data-status={status ? draft?.status : 'not-found'}>
      <div class="spread">
        <h2 id="linked-outcome-title" ref={heading} tabIndex={-1} class="linked-outcome-title">
          {draft ? `${taskKindLabel(draft.task.type)} for ${draft.lead.name}` : 'The draft you followed a link to'}
        </h2>
        {status && <Badge tone={status.tone}>{status.label}</Badge>}
      </div>
      {draft ? (
        <>
          <p>This draft no longer waits for review. {outcome}</p>
          <p class="small">
            {draft.campaign.name} · <a href={`#campaigns?campaign=${draft.campaign.id}`}>Open its campaign</a> to see its task.
          </p>
        </>
      ) : (
        <p>{linked.error ?? 'That draft was not found: it is not one of yours, or it is gone.'}</p>
      )}
    </section>
  );
}

/** An admin's section: drafts their owners did not review in the time a policy rule gave them. */
function EscalatedDrafts({
  drafts,
  linked,
  onDone,
}: {
  drafts: readonly EscalatedDraft[];
  linked: string | null;
  onDone: () => Promise<void>;
}) {
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
        log names you as its reviewer; if nobody decides it in time, it expires and its task is cancelled.
      </p>
      {drafts.length === 0 ? (
        <p class="muted">No draft is escalated to the admins.</p>
      ) : (
        <ul class="plain stack review-list">
          {drafts.map((draft) => (
            <LinkedItem key={draft.id} id={draft.id} linked={linked}>
              <DraftCard draft={draft} owner={draft.ownerEmail ?? 'a deleted account'} review={review} onDone={onDone} />
            </LinkedItem>
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
  const kind = taskKindLabel(draft.task.type);
  const edits: DraftEdits | undefined =
    draft.action === 'linkedin_send_message' && text !== draft.text
      ? { message: text }
      : draft.action === 'send_email' && (text !== draft.text || subject !== draft.subject)
        ? { ...(subject !== draft.subject && { subject }), ...(text !== draft.text && { body: text }) }
        : undefined;
  // Past its time nobody may decide it any more: it expired undecided (the sweep closes it).
  const expired = draftExpired(draft, now.value);

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
        <Button busy={busy === 'approve'} disabled={busy !== null || expired} onClick={() => void decide('approve')}>
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
