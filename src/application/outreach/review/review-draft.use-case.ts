import { Injectable } from '@nestjs/common';
import { DraftNotFoundError, type DraftEdits, editDraft, reviewError, reviewProblem } from '../../../domain/outreach/review';
import { SchemaValidator } from '../../agent/ports/schema-validator.port';
import { Clock } from '../../shared/ports/clock.port';
import { OutreachDraftStore, type ReviewResult, type StoredDraft } from '../ports/outreach-draft-store.port';

export interface DraftRef {
  /** The draft's owner. */
  readonly userId: string;
  readonly draftId: string;
  /**
   * An admin deciding an escalated draft in its owner's stead (ReviewEscalatedDraftUseCase):
   * the reviewer the audit row names, and only an escalated draft is touched. The owner decides when absent.
   */
  readonly adminId?: string;
}

/**
 * A person's decision on a draft held for review. The review names the hash of the
 * arguments it was made on: a draft whose arguments changed since, or that was decided,
 * expired or sent meanwhile, is not touched (409). The decision itself is one conditional
 * update in the store, so a replayed or concurrent approval changes the draft once.
 */
@Injectable()
export class ReviewDraftUseCase {
  constructor(
    private readonly drafts: OutreachDraftStore,
    private readonly clock: Clock,
    private readonly schemas: SchemaValidator,
  ) {}

  /**
   * Approves the draft as it stands or, with `edits`, as edited: the edit is checked by the
   * same rules as a model's proposal and gets its own hash. The task runs it at its next cycle.
   */
  async approve(input: DraftRef & { argumentsHash: string; edits?: DraftEdits }): Promise<StoredDraft> {
    const found = await this.drafts.get(input.userId, input.draftId);
    if (!found) throw new DraftNotFoundError();
    const now = this.clock.now();
    const problem = reviewProblem(found.draft, { argumentsHash: input.argumentsHash, now });
    if (problem) throw reviewError(problem, found.draft.status);
    const edits = input.edits ?? {};
    const edited = Object.values(edits).some((value) => value !== undefined)
      ? editDraft(found.draft.proposal, edits, found.target, this.schemas)
      : null;
    return settled(
      await this.drafts.approve({
        ownerId: input.userId,
        draftId: input.draftId,
        argumentsHash: input.argumentsHash,
        edited,
        ...reviewer(input),
        now,
      }),
    );
  }

  /** Rejects the draft: it never runs, its quota slot is given back and its task is Cancelled (REJECTED_BY_REVIEWER). */
  async reject(input: DraftRef & { argumentsHash: string }): Promise<StoredDraft> {
    return settled(
      await this.drafts.reject({
        ownerId: input.userId,
        draftId: input.draftId,
        argumentsHash: input.argumentsHash,
        ...reviewer(input),
        now: this.clock.now(),
      }),
    );
  }
}

/** Who decides: the owner, or an admin, who may decide only an escalated draft. */
function reviewer(input: DraftRef): { reviewerId: string; escalatedOnly: boolean } {
  return { reviewerId: input.adminId ?? input.userId, escalatedOnly: input.adminId !== undefined };
}

function settled(result: ReviewResult): StoredDraft {
  if (result.ok) return result.draft;
  if (result.problem === 'not_found') throw new DraftNotFoundError();
  throw reviewError(result.problem, result.status);
}
