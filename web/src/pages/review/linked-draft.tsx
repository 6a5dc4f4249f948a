import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, type Draft, type DraftReview, getDraft, type Session } from '../../api';
import { DRAFT_STATUS, draftExpired, draftOutcome } from '../../lib/holds';
import { taskKindLabel, labelOf } from '../../lib/labels';
import { now } from '../../state/session';
import { Badge } from '../../ui';
import { DraftCard } from './draft-card';

/** A draft a link named that neither queue holds: read by its id (null when it is not the person's to read). */
export interface LinkedDraft {
  readonly id: string;
  readonly draft: Draft | null;
  /** Why it could not be read, other than its not being found. */
  readonly error?: string | null;
}

export async function readLinked(session: Session, id: string): Promise<LinkedDraft> {
  try {
    return { id, draft: await getDraft(session, id) };
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404) return { id, draft: null };
    throw failure;
  }
}

/**
 * One draft of a queue; the one a link names (`linked`) is brought into view, highlighted and
 * focused, once, so that a keyboard or screen-reader user starts at it.
 */
export function LinkedItem({ id, linked, children }: { id: string; linked: string | null; children: ComponentChildren }) {
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
export function LinkedDraftNotice({ linked, review, onDone }: { linked: LinkedDraft; review: DraftReview; onDone: () => Promise<void> }) {
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
