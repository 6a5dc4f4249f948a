import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { CreateCampaignUseCase } from '../../../application/outreach/campaigns/create-campaign.use-case';
import { DeleteCampaignUseCase } from '../../../application/outreach/campaigns/delete-campaign.use-case';
import { GetCampaignUseCase } from '../../../application/outreach/campaigns/get-campaign.use-case';
import { ImportLeadsUseCase, type LeadSource } from '../../../application/outreach/campaigns/import-leads.use-case';
import { ListCampaignTasksUseCase } from '../../../application/outreach/campaigns/list-campaign-tasks.use-case';
import { ListCampaignsUseCase } from '../../../application/outreach/campaigns/list-campaigns.use-case';
import { PauseCampaignUseCase } from '../../../application/outreach/campaigns/pause-campaign.use-case';
import { StartCampaignUseCase } from '../../../application/outreach/campaigns/start-campaign.use-case';
import { UpdateCampaignUseCase } from '../../../application/outreach/campaigns/update-campaign.use-case';
import { MAX_CSV_BYTES } from '../configure-http-app';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiError } from '../shared/api-error';
import { ApiErrors } from '../shared/api-errors.decorator';
import { createValidationPipe } from '../shared/validation';
import { UserPathDto } from '../todo/task.dto';
import { CampaignPageDto, CampaignPathDto, CampaignResponseDto, CreateCampaignRequestDto, UpdateCampaignRequestDto } from './campaign.dto';
import { CampaignDetailsResponseDto } from './campaign-details.dto';
import { CampaignTaskDto, CampaignTaskPageDto } from './campaign-task.dto';
import { ImportLeadsRequestDto, LeadImportReportDto } from './lead-import.dto';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

const CSV_EXAMPLE =
  'name,linkedinUrl,email\n' +
  'Ada Lovelace,https://www.linkedin.com/in/ada-lovelace/,ada@example.com\n' +
  'Alan Turing,https://www.linkedin.com/in/alan-turing/,\n';

/** Each route's description says which state it refuses. */
const CAMPAIGN_STATE = { status: 409, description: "OUTREACH.CAMPAIGN_STATE: the campaign's state does not allow it" } as const;

@ApiTags('campaigns')
@ApiErrors(400)
@RequiredScope('campaigns:read', 'campaigns:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/campaigns')
export class CampaignsController {
  /** The JSON lead import is validated here: the route also takes CSV, which the global pipe must not see. */
  private readonly validation = createValidationPipe();

  constructor(
    private readonly createCampaign: CreateCampaignUseCase,
    private readonly listCampaigns: ListCampaignsUseCase,
    private readonly getCampaign: GetCampaignUseCase,
    private readonly updateCampaign: UpdateCampaignUseCase,
    private readonly deleteCampaign: DeleteCampaignUseCase,
    private readonly startCampaign: StartCampaignUseCase,
    private readonly pauseCampaign: PauseCampaignUseCase,
    private readonly importLeads: ImportLeadsUseCase,
    private readonly listTasks: ListCampaignTasksUseCase,
  ) {}

  @Post()
  @ApiOperation({
    operationId: 'createCampaign',
    summary: 'Create a campaign, as a draft',
    description: 'A daily limit not given is the default; the brief and templates are optional. Import leads, then start it.',
  })
  @ApiCreatedResponse({ type: CampaignResponseDto, description: 'The campaign, made (a draft)' })
  @ApiErrors(413)
  async create(@Param() path: UserPathDto, @Body() body: CreateCampaignRequestDto): Promise<CampaignResponseDto> {
    return CampaignResponseDto.of(await this.createCampaign.execute({ userId: path.userId, ...body }));
  }

  @Get()
  @ApiOperation({
    operationId: 'listCampaigns',
    summary: "The user's campaigns, newest first",
    description: 'One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: CampaignPageDto, description: 'One page of campaigns' })
  async list(@Param() path: UserPathDto, @Query() query: PageQueryDto): Promise<CampaignPageDto> {
    const page = await this.listCampaigns.execute({
      userId: path.userId,
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((campaign) => CampaignResponseDto.of(campaign)), nextCursor: page.nextCursor };
  }

  @Get(':campaignId')
  @ApiOperation({
    operationId: 'getCampaign',
    summary: "A campaign with its lead and task counts and today's quota use",
    description: "Today's use of each daily quota, by this campaign and by all the user's campaigns, and when it resets.",
  })
  @ApiOkResponse({ type: CampaignDetailsResponseDto, description: 'The campaign with its counts' })
  @ApiErrors(404)
  async get(@Param() path: CampaignPathDto): Promise<CampaignDetailsResponseDto> {
    return CampaignDetailsResponseDto.ofDetails(await this.getCampaign.execute(path));
  }

  @Patch(':campaignId')
  @ApiOperation({
    operationId: 'updateCampaign',
    summary: 'Rename a campaign or change its daily or weekly limits, review mode, brief or templates',
    description:
      'Send at least one of name, dailyLimits, weeklyLimits, limits, approvalMode, approvalFirstN, brief, templates; in weeklyLimits, ' +
      'limits, brief and templates, a field given replaces the stored one and null clears it. A completed campaign cannot be changed (409).',
  })
  @ApiOkResponse({ type: CampaignResponseDto, description: 'The campaign, changed' })
  @ApiErrors(404, CAMPAIGN_STATE, 413)
  async update(@Param() path: CampaignPathDto, @Body() body: UpdateCampaignRequestDto): Promise<CampaignResponseDto> {
    if (
      body.name === undefined &&
      body.dailyLimits === undefined &&
      body.weeklyLimits === undefined &&
      body.limits === undefined &&
      body.approvalMode === undefined &&
      body.approvalFirstN === undefined &&
      body.brief === undefined &&
      body.templates === undefined
    ) {
      throw new ApiError(
        400,
        'VALIDATION.FAILED',
        'Send at least one of name, dailyLimits, weeklyLimits, limits, approvalMode, approvalFirstN, brief, templates',
      );
    }
    return CampaignResponseDto.of(await this.updateCampaign.execute({ ...path, changes: body }));
  }

  @Delete(':campaignId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteCampaign',
    summary: 'Delete a campaign with its leads and tasks',
    description: 'An active campaign is refused (409): pause it first. Its audit rows and the quota it used today stay.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, CAMPAIGN_STATE)
  async remove(@Param() path: CampaignPathDto): Promise<void> {
    await this.deleteCampaign.execute(path);
  }

  @Post(':campaignId/start')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'startCampaign',
    summary: 'Start (or resume) a campaign: workers begin to work its tasks',
    description: 'Idempotent. A campaign without leads (import some first) or a completed one is refused (409).',
  })
  @ApiOkResponse({ type: CampaignResponseDto, description: 'The campaign, active' })
  @ApiErrors(404, CAMPAIGN_STATE)
  async start(@Param() path: CampaignPathDto): Promise<CampaignResponseDto> {
    return CampaignResponseDto.of(await this.startCampaign.execute(path));
  }

  @Post(':campaignId/pause')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'pauseCampaign',
    summary: 'Pause a campaign: no new task is claimed',
    description: 'Idempotent; a draft stays a draft. A completed campaign is refused (409).',
  })
  @ApiOkResponse({ type: CampaignResponseDto, description: 'The campaign, paused' })
  @ApiErrors(404, CAMPAIGN_STATE)
  async pause(@Param() path: CampaignPathDto): Promise<CampaignResponseDto> {
    return CampaignResponseDto.of(await this.pauseCampaign.execute(path));
  }

  @Post(':campaignId/leads')
  @ApiExtraModels(ImportLeadsRequestDto)
  @ApiOperation({
    operationId: 'importLeads',
    summary: 'Import leads from JSON or CSV; each new lead gets its tasks',
    description:
      'application/json: `{leads: [{name, linkedinUrl, email?}]}`, 1 to 1000 leads; one invalid lead refuses the request (400). ' +
      'text/csv: a header row naming name (or firstName/lastName), linkedinUrl and optionally email, then one lead per row; ' +
      'the delimiter is found among comma, semicolon, tab and |, a UTF-8 BOM is dropped, quoted fields may hold newlines ' +
      'and doubled quotes. Invalid rows are reported in `errors` by line and not imported, the others are; broken quotes ' +
      '(a quoted field never closed) refuse the whole file (400 OUTREACH.MALFORMED_CSV, naming the line). Leads the campaign already has ' +
      '(same profile URL) are skipped and reported in `duplicates`. Each new lead gets a profile look-up, a LinkedIn ' +
      'message and, when it has an email, an email task. A completed campaign takes no leads (409).',
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { $ref: getSchemaPath(ImportLeadsRequestDto) } },
        'text/csv': { schema: { type: 'string', maxLength: MAX_CSV_BYTES }, example: CSV_EXAMPLE },
      },
    },
  })
  @ApiCreatedResponse({ type: LeadImportReportDto, description: 'What was imported, and each row refused with its line' })
  @ApiErrors(
    404,
    CAMPAIGN_STATE,
    { status: 413, description: 'HTTP.PAYLOAD_TOO_LARGE: JSON larger than 64 KB or CSV larger than 2 MB' },
    { status: 415, description: 'HTTP.UNSUPPORTED_MEDIA_TYPE: neither application/json nor text/csv' },
  )
  async importLeadsFrom(@Param() path: CampaignPathDto, @Req() req: Request): Promise<LeadImportReportDto> {
    return LeadImportReportDto.of(await this.importLeads.execute({ ...path, source: await this.leadSource(req) }));
  }

  @Get(':campaignId/tasks')
  @ApiOperation({
    operationId: 'listCampaignTasks',
    summary: "The campaign's tasks with their lead, in import order then step",
    description: 'Each with its status, attempts, next run and last error. One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: CampaignTaskPageDto, description: 'One page of the campaign’s tasks' })
  @ApiErrors(404)
  async tasks(@Param() path: CampaignPathDto, @Query() query: PageQueryDto): Promise<CampaignTaskPageDto> {
    const page = await this.listTasks.execute({ ...path, limit: query.limit ?? PAGE_LIMIT_DEFAULT, cursor: query.cursor ?? null });
    return { items: page.items.map((task) => CampaignTaskDto.of(task)), nextCursor: page.nextCursor };
  }

  private async leadSource(req: Request): Promise<LeadSource> {
    // From the header rather than req.is(), which answers null for an empty body: an empty
    // CSV is reported as such, an empty JSON body as a missing `leads`.
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType === 'text/csv') {
      return { format: 'csv', text: typeof req.body === 'string' ? req.body : '' };
    }
    if (mediaType === 'application/json') {
      const body = (await this.validation.transform(req.body, { type: 'body', metatype: ImportLeadsRequestDto })) as ImportLeadsRequestDto;
      return { format: 'json', leads: body.leads, steps: body.steps };
    }
    throw new ApiError(415, 'HTTP.UNSUPPORTED_MEDIA_TYPE', 'Send the leads as application/json or text/csv');
  }
}
