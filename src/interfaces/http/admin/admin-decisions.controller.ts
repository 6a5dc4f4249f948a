import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetDecisionUseCase } from '../../../application/audit/get-decision.use-case';
import { ListDecisionsUseCase } from '../../../application/audit/list-decisions.use-case';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { AdminGuard } from './admin.guard';
import { DecisionLogDetailDto, DecisionLogDto, DecisionLogPageDto } from './admin-decisions.dto';
import { DecisionPageQueryDto, DecisionPathDto, toDecisionFilter } from './admin-query.dto';
import { PAGE_LIMIT_DEFAULT } from '../shared/page-query.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

/** The decision log (one row per chat turn or outreach cycle), for admins; each read is audited. */
@ApiTags('admin')
@ApiErrors(400)
@RequiredScope('audit:read')
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/decisions')
export class AdminDecisionsController {
  constructor(
    private readonly listDecisions: ListDecisionsUseCase,
    private readonly getDecision: GetDecisionUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listDecisions',
    summary: 'Decisions, newest first',
    description: 'Chat turns and outreach cycles, with their model usage. One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: DecisionLogPageDto, description: 'One page of decisions' })
  async list(@Query() query: DecisionPageQueryDto, @CurrentPrincipal() admin: Principal): Promise<DecisionLogPageDto> {
    const page = await this.listDecisions.execute({
      adminId: admin.userId,
      filter: toDecisionFilter(query),
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((decision) => DecisionLogDto.of(decision)), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getDecision',
    summary: 'One decision with its tool calls (its audit rows, in order)',
    description: 'A chat turn also carries what the model was told besides the message.',
  })
  @ApiOkResponse({ type: DecisionLogDetailDto, description: 'The decision and its tool calls' })
  @ApiErrors(404)
  async get(@Param() path: DecisionPathDto, @CurrentPrincipal() admin: Principal): Promise<DecisionLogDetailDto> {
    return DecisionLogDetailDto.withToolCalls(await this.getDecision.execute({ adminId: admin.userId, id: path.id }));
  }
}
