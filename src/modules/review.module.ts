import { Module } from '@nestjs/common';
import { AdminReadRecorder } from '../application/audit/admin-read-recorder';
import { GetDraftUseCase } from '../application/outreach/review/get-draft.use-case';
import { ListDraftsUseCase } from '../application/outreach/review/list-drafts.use-case';
import { ReviewDraftUseCase } from '../application/outreach/review/review-draft.use-case';
import { ReviewEscalatedDraftUseCase } from '../application/outreach/review/review-escalated-draft.use-case';
import { AdminReviewQueueController } from '../interfaces/http/admin/admin-review-queue.controller';
import { DraftsController } from '../interfaces/http/outreach/drafts.controller';
import { IdentityModule } from './identity.module';
import { ModelModule } from './model.module';
import { OutreachModule } from './outreach.module';

/**
 * Review before send over HTTP: the drafts a campaign holds for its owner, and their approval
 * or rejection; and the admins' queue of drafts a policy rule escalated to them, decided as
 * their owners would (its reads audited as admin reads).
 */
@Module({
  imports: [IdentityModule, ModelModule, OutreachModule],
  controllers: [DraftsController, AdminReviewQueueController],
  providers: [ListDraftsUseCase, GetDraftUseCase, ReviewDraftUseCase, ReviewEscalatedDraftUseCase, AdminReadRecorder],
})
export class ReviewModule {}
