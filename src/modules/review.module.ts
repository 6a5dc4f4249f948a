import { Module } from '@nestjs/common';
import { ListDraftsUseCase } from '../application/outreach/review/list-drafts.use-case';
import { ReviewDraftUseCase } from '../application/outreach/review/review-draft.use-case';
import { DraftsController } from '../interfaces/http/outreach/drafts.controller';
import { IdentityModule } from './identity.module';
import { ModelModule } from './model.module';
import { OutreachModule } from './outreach.module';

/** Review before send over HTTP: the drafts a campaign holds for its owner, and their approval or rejection. */
@Module({
  imports: [IdentityModule, ModelModule, OutreachModule],
  controllers: [DraftsController],
  providers: [ListDraftsUseCase, ReviewDraftUseCase],
})
export class ReviewModule {}
