import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ReviewEscalatedDraftUseCase } from '../../../application/outreach/review/review-escalated-draft.use-case';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApproveDraftRequestDto, DraftResponseDto, RejectDraftRequestDto } from '../outreach/draft.dto';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { RateLimit } from '../shared/rate-limit';
import { AdminGuard } from './admin.guard';
import { EscalatedDraftPageDto, EscalatedDraftPathDto, EscalatedDraftResponseDto } from './admin-review-queue.dto';

const NOT_FOUND = {
  status: 404,
  description: 'OUTREACH.DRAFT_NOT_FOUND: no such draft, or it was never escalated (an admin decides only escalated drafts)',
} as const;
const STALE_REVIEW = {
  status: 409,
  description:
    'OUTREACH.DRAFT_NOT_AWAITING_REVIEW: the draft was approved, rejected, expired or sent already, by its owner or an admin ' +
    '(a replayed review changes nothing); OUTREACH.DRAFT_HASH_MISMATCH: argumentsHash is not the draft’s as it stands; ' +
    'OUTREACH.DRAFT_EXPIRED: the admins’ time ran out too',
} as const;

/**
 * The admins' review queue (docs/outreach.md): drafts held by a policy rule whose reviewer did
 * not answer in time and whose fallback is escalate. An admin decides one as its owner would,
 * through the same use case, named as the reviewer. A signed-in session only, like the policy:
 * no token's scope covers deciding what is sent in another person's name. Decisions are rate
 * limited per address, as storing a policy is.
 */
@ApiTags('admin')
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/review-queue')
export class AdminReviewQueueController {
  constructor(private readonly escalated: ReviewEscalatedDraftUseCase) {}

  @Get()
  @ApiOperation({
    operationId: 'listEscalatedDrafts',
    summary: 'Drafts escalated to the admins and still awaiting review, of every owner, the latest escalated first',
    description:
      'A policy rule with effect ask-reviewer and fallback escalate holds an outreach action for its campaign owner; when ' +
      'the owner does not decide it within the rule’s timeoutMinutes, it is escalated: any admin may then decide it, for as ' +
      'long again; undecided then, it expires (status expired, the task Cancelled with lastError REVIEW_EXPIRED: nobody ' +
      'decided it in time, nobody refused it). Each draft is the owner’s draft, with ' +
      'its ownerId and ownerEmail. One page; pass nextCursor back as cursor for the next one. Each read is recorded in the ' +
      'audit log (admin.review_queue.list, the admin as actor), as a read of the audit trail is.',
  })
  @ApiOkResponse({ type: EscalatedDraftPageDto, description: 'One page of escalated drafts' })
  @ApiErrors(400)
  async list(@Query() query: PageQueryDto, @CurrentPrincipal() admin: Principal): Promise<EscalatedDraftPageDto> {
    const page = await this.escalated.list({
      adminId: admin.userId,
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((draft) => EscalatedDraftResponseDto.ofEscalated(draft)), nextCursor: page.nextCursor };
  }

  @Post(':draftId/approve')
  @HttpCode(200)
  @RateLimit('default')
  @ApiOperation({
    operationId: 'approveEscalatedDraft',
    summary: 'Approve an escalated draft, as it stands or edited, in its owner’s stead; it runs once at its task’s next cycle',
    description:
      'The same as the owner’s approval (approveDraft), with the same body and checks: argumentsHash must be the draft’s, and ' +
      'edits are checked by the rules of a model’s proposal (400 naming the field) and get a new argumentsHash. The approval ' +
      'is audited as approve_draft with the admin as actor and reviewer. A draft that was never escalated is 404, whoever ' +
      'asks. Approving twice, or at once with its owner, approves once: the second answers 409.',
  })
  @ApiOkResponse({ type: DraftResponseDto, description: 'The draft, approved' })
  @ApiErrors(400, NOT_FOUND, STALE_REVIEW, 413)
  async approve(
    @Param() path: EscalatedDraftPathDto,
    @Body() body: ApproveDraftRequestDto,
    @CurrentPrincipal() admin: Principal,
  ): Promise<DraftResponseDto> {
    return DraftResponseDto.of(
      await this.escalated.approve({ adminId: admin.userId, draftId: path.draftId, argumentsHash: body.argumentsHash, edits: body.edits }),
    );
  }

  @Post(':draftId/reject')
  @HttpCode(200)
  @RateLimit('default')
  @ApiOperation({
    operationId: 'rejectEscalatedDraft',
    summary: 'Reject an escalated draft in its owner’s stead: it never runs, and its quota slot is given back',
    description:
      'The same as the owner’s rejection (rejectDraft): argumentsHash must be the draft’s; the task is Cancelled with ' +
      'lastError REJECTED_BY_REVIEWER (the lead’s later steps go on). Audited as reject_draft with the admin as actor and ' +
      'reviewer. A draft that was never escalated is 404.',
  })
  @ApiOkResponse({ type: DraftResponseDto, description: 'The draft, rejected' })
  @ApiErrors(400, NOT_FOUND, STALE_REVIEW, 413)
  async reject(
    @Param() path: EscalatedDraftPathDto,
    @Body() body: RejectDraftRequestDto,
    @CurrentPrincipal() admin: Principal,
  ): Promise<DraftResponseDto> {
    return DraftResponseDto.of(
      await this.escalated.reject({ adminId: admin.userId, draftId: path.draftId, argumentsHash: body.argumentsHash }),
    );
  }
}
