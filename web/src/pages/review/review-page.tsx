import { listDrafts, listEscalatedDrafts, ownReview } from '../../api';
import { plural } from '../../lib/labels';
import { useResource } from '../../lib/use-resource';
import { routeId } from '../../state/route';
import { currentSession } from '../../state/session';
import { Alert, EmptyState } from '../../ui';
import { DraftCard } from './draft-card';
import { EscalatedDrafts } from './escalated-drafts';
import { type LinkedDraft, LinkedDraftNotice, LinkedItem, readLinked } from './linked-draft';
import './review.css';

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
  const linked = routeId('draft');
  // Read again when a link names another draft: it shows the queue as it is now.
  const queues = useResource(async () => {
    const [own, queue] = await Promise.all([listDrafts(session), admin ? listEscalatedDrafts(session) : null]);
    // An admin's own escalated draft is among their own drafts already.
    return { drafts: own.items, escalated: queue && queue.items.filter((draft) => draft.ownerId !== session.userId) };
  }, [linked]);
  const { drafts = null, escalated = null } = queues.data ?? {};
  const refresh = queues.reload;
  const error = queues.error;

  // The linked draft when neither queue holds it: read by its id, to say what became of it.
  const queued = (id: string) => !!drafts?.some((draft) => draft.id === id) || !!escalated?.some((draft) => draft.id === id);
  const outside = useResource(
    () => (!linked || drafts === null || queued(linked) ? Promise.resolve(null) : readLinked(session, linked)),
    [linked, queues.data],
  );
  const elsewhere: LinkedDraft | null =
    linked === null
      ? null
      : outside.error
        ? { id: linked, draft: null, error: outside.error }
        : outside.data?.id === linked
          ? outside.data
          : null;

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
