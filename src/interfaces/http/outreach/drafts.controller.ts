import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetDraftUseCase } from '../../../application/outreach/review/get-draft.use-case';
import { ListDraftsUseCase } from '../../../application/outreach/review/list-drafts.use-case';
import { ReviewDraftUseCase } from '../../../application/outreach/review/review-draft.use-case';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT } from '../shared/page-query.dto';
import { UserPathDto } from '../todo/task.dto';
import {
  ApproveDraftRequestDto,
  DraftListQueryDto,
  DraftPageDto,
  DraftPathDto,
  DraftResponseDto,
  RejectDraftRequestDto,
} from './draft.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

const NOT_FOUND = { status: 404, description: "OUTREACH.DRAFT_NOT_FOUND: no such draft, or not the user's" } as const;
const STALE_REVIEW = {
  status: 409,
  description:
    'OUTREACH.DRAFT_NOT_AWAITING_REVIEW: the draft was approved, rejected, expired or sent already (a replayed review changes ' +
    'nothing); OUTREACH.DRAFT_HASH_MISMATCH: argumentsHash is not the draft’s as it stands; OUTREACH.DRAFT_EXPIRED: its time ran out',
} as const;

/** Review before send: the user's drafts, and the decision on each. */
@ApiTags('drafts')
@ApiErrors(400)
@RequiredScope('campaigns:read', 'campaigns:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/outreach/drafts')
export class DraftsController {
  constructor(
    private readonly listDrafts: ListDraftsUseCase,
    private readonly getDraft: GetDraftUseCase,
    private readonly review: ReviewDraftUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listDrafts',
    summary: "Channel actions held for the user's review, newest first",
    description:
      'A campaign whose approvalMode is all (or first_n, for the first N actions of each kind) holds each channel action as a ' +
      'draft: nothing is sent before it is approved. Each draft gives the exact arguments and their argumentsHash, which a ' +
      'review names. ?status=awaiting_review is the review queue. One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: DraftPageDto, description: 'One page of drafts' })
  async list(@Param() path: UserPathDto, @Query() query: DraftListQueryDto): Promise<DraftPageDto> {
    const page = await this.listDrafts.execute({
      userId: path.userId,
      status: query.status ?? null,
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((draft) => DraftResponseDto.of(draft)), nextCursor: page.nextCursor };
  }

  @Get(':draftId')
  @ApiOperation({
    operationId: 'getDraft',
    summary: 'One of the user’s drafts, whatever became of it',
    description:
      'The draft as it stands: awaiting_review, approved, rejected (by its reviewer), expired (nobody decided it in time) or ' +
      'sent. A link to a draft (the console’s #review?draft=<id>, a notification’s) reads it here; reading it decides nothing.',
  })
  @ApiOkResponse({ type: DraftResponseDto, description: 'The draft' })
  @ApiErrors(NOT_FOUND)
  async get(@Param() path: DraftPathDto): Promise<DraftResponseDto> {
    return DraftResponseDto.of(await this.getDraft.execute(path));
  }

  @Post(':draftId/approve')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'approveDraft',
    summary: 'Approve a draft, as it stands or edited; it runs once at its task’s next cycle',
    description:
      'argumentsHash must be the draft’s: a review of other arguments never approves it. With edits, the message (LinkedIn) or ' +
      'the subject and body (email) change first, are checked by the same rules as a model’s proposal (400 naming the field) ' +
      'and get a new argumentsHash. The approval is audited with the reviewer. Approving twice, or at once from two places, ' +
      'approves once: the second answers 409.',
  })
  @ApiOkResponse({ type: DraftResponseDto, description: 'The draft, approved' })
  @ApiErrors(NOT_FOUND, STALE_REVIEW, 413)
  async approve(@Param() path: DraftPathDto, @Body() body: ApproveDraftRequestDto): Promise<DraftResponseDto> {
    return DraftResponseDto.of(await this.review.approve({ ...path, argumentsHash: body.argumentsHash, edits: body.edits }));
  }

  @Post(':draftId/reject')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rejectDraft',
    summary: 'Reject a draft: it never runs, and its quota slot is given back',
    description:
      'argumentsHash must be the draft’s. The task is Cancelled with lastError REJECTED_BY_REVIEWER (the lead’s later steps go on); ' +
      'the rejection is audited with the reviewer.',
  })
  @ApiOkResponse({ type: DraftResponseDto, description: 'The draft, rejected' })
  @ApiErrors(NOT_FOUND, STALE_REVIEW, 413)
  async reject(@Param() path: DraftPathDto, @Body() body: RejectDraftRequestDto): Promise<DraftResponseDto> {
    return DraftResponseDto.of(await this.review.reject({ ...path, argumentsHash: body.argumentsHash }));
  }
}
