import { type EscalatedDraft, escalatedReview } from '../../api';
import { plural } from '../../lib/labels';
import { currentSession } from '../../state/session';
import { DraftCard } from './draft-card';
import { LinkedItem } from './linked-draft';

/** An admin's section: drafts their owners did not review in the time a policy rule gave them. */
export function EscalatedDrafts({
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
