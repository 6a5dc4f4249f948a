import { Controller, Get, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ChangePolicyUseCase } from '../../../application/policy/change-policy.use-case';
import { GetPolicyVersionUseCase } from '../../../application/policy/get-policy-version.use-case';
import { GetPolicyUseCase } from '../../../application/policy/get-policy.use-case';
import { ListPolicyVersionsUseCase } from '../../../application/policy/list-policy-versions.use-case';
import type { PolicyVersionView } from '../../../application/policy/policy-version-view';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiError } from '../shared/api-error';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { POLICY_REFUSED_RESPONSE } from '../shared/policy-refused-response.dto';
import { RateLimit } from '../shared/rate-limit';
import { createValidationPipe } from '../shared/validation';
import { AdminGuard } from './admin.guard';
import {
  ChangePolicyRequestDto,
  POLICY_YAML,
  POLICY_YAML_TYPES,
  PolicyFormatQueryDto,
  PolicyVersionDto,
  PolicyVersionPageDto,
  PolicyVersionPathDto,
  PolicyVersionSummaryDto,
} from './admin-policy.dto';
import { policyToYaml, readPolicyYaml } from './policy-yaml';

/** A policy in either format: the JSON body, or the rules as a policy file. */
const POLICY_CONTENT = {
  'application/json': { schema: { $ref: getSchemaPath(PolicyVersionDto) } },
  [POLICY_YAML]: { schema: { type: 'string', description: 'The rules as YAML, after comments that name the version' } },
};

/**
 * The policy, for admins: the one in force, its versions, and storing a new one (docs/policies.md).
 * A signed-in session only, like the other admin commands: no token's scope covers changing
 * what every tool call may do. Storing is rate limited per address; reads are not, as the
 * audit log's are not.
 */
@ApiTags('admin')
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/policy')
export class AdminPolicyController {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly getPolicy: GetPolicyUseCase,
    private readonly getVersion: GetPolicyVersionUseCase,
    private readonly listVersions: ListPolicyVersionsUseCase,
    private readonly changePolicy: ChangePolicyUseCase,
  ) {}

  @Get()
  @ApiExtraModels(PolicyVersionDto)
  @ApiOperation({
    operationId: 'getPolicy',
    summary: 'The policy in force',
    description:
      'The newest stored version, which every server process enforces within a second of its save, with its author and ' +
      'reason; version 0 (builtIn) when no admin ever stored one. With format=yaml, or Accept: application/yaml, the rules ' +
      'as a policy file to edit and PUT back.',
  })
  @ApiOkResponse({ description: 'The policy in force', content: POLICY_CONTENT })
  @ApiErrors(400)
  async inForce(
    @Query() query: PolicyFormatQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PolicyVersionDto | string> {
    return answer(await this.getPolicy.execute(), query, req, res);
  }

  @Put()
  @RateLimit('default')
  @ApiExtraModels(ChangePolicyRequestDto)
  @ApiOperation({
    operationId: 'changePolicy',
    summary: 'Store a new version of the policy, in force at once',
    description:
      'The whole policy: `rules`, in the order evaluation reads them, and `reason`, why (1 to 500 characters). As JSON, or ' +
      `as a policy file (Content-Type: ${POLICY_YAML}) holding the same two fields, such as GET ?format=yaml gives with ` +
      '`reason: …` added; at most 64 KB either way. The rules are checked whole, against the tools there are, and every ' +
      "email they name must be an account's: a policy with any problem is refused (400 POLICY.INVALID) with every problem " +
      'by rule position and field, and nothing is stored. Stored, it is the next version (1, 2, …), in force on this ' +
      'server when the answer comes and on every other within a second. Audited as change_policy (source admin): the ' +
      'pending row holds the reason, the number of rules and the version it replaces; its outcome row, the new version.',
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { $ref: getSchemaPath(ChangePolicyRequestDto) } },
        [POLICY_YAML]: { schema: { $ref: getSchemaPath(ChangePolicyRequestDto) } },
      },
    },
  })
  @ApiOkResponse({ type: PolicyVersionDto, description: 'The version stored, now in force' })
  @ApiResponse(POLICY_REFUSED_RESPONSE)
  @ApiErrors(
    { status: 413, description: 'HTTP.PAYLOAD_TOO_LARGE: the body is larger than 64 KB' },
    { status: 415, description: `HTTP.UNSUPPORTED_MEDIA_TYPE: neither application/json nor ${POLICY_YAML}` },
  )
  async change(@Req() req: Request, @CurrentPrincipal() admin: Principal): Promise<PolicyVersionDto> {
    const body = await this.changeRequest(req);
    const stored = await this.changePolicy.execute({
      adminId: admin.userId,
      adminEmail: admin.email,
      rules: body.rules,
      reason: body.reason,
    });
    return PolicyVersionDto.of(stored);
  }

  @Get('versions')
  @ApiOperation({
    operationId: 'listPolicyVersions',
    summary: 'The stored versions of the policy, newest first',
    description: 'Who stored each, when, why and how many rules it has. One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: PolicyVersionPageDto, description: 'One page of versions' })
  @ApiErrors(400)
  async versions(@Query() query: PageQueryDto): Promise<PolicyVersionPageDto> {
    const page = await this.listVersions.execute({ limit: query.limit ?? PAGE_LIMIT_DEFAULT, cursor: query.cursor ?? null });
    return { items: page.items.map((summary) => PolicyVersionSummaryDto.of(summary)), nextCursor: page.nextCursor };
  }

  @Get('versions/:version')
  @ApiExtraModels(PolicyVersionDto)
  @ApiOperation({
    operationId: 'getPolicyVersion',
    summary: 'One version of the policy, with its rules',
    description: 'Version 0 is the built-in policy. With format=yaml, or Accept: application/yaml, the rules as a policy file.',
  })
  @ApiOkResponse({ description: 'The version', content: POLICY_CONTENT })
  @ApiErrors(400, { status: 404, description: 'POLICY.VERSION_NOT_FOUND: no such version was stored' })
  async version(
    @Param() path: PolicyVersionPathDto,
    @Query() query: PolicyFormatQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PolicyVersionDto | string> {
    return answer(await this.getVersion.execute(path.version), query, req, res);
  }

  /** The body as JSON or as a policy file, checked as one DTO whichever it came as. */
  private async changeRequest(req: Request): Promise<ChangePolicyRequestDto> {
    // From the header rather than req.is(), which answers null for an empty body: an empty file is a missing `rules`.
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    let body: unknown;
    if (POLICY_YAML_TYPES.includes(mediaType)) body = readPolicyYaml(typeof req.body === 'string' ? req.body : '');
    else if (mediaType === 'application/json') body = req.body;
    else throw new ApiError(415, 'HTTP.UNSUPPORTED_MEDIA_TYPE', `Send the policy as application/json or ${POLICY_YAML}`);
    // An empty file parses to null: refused as a body without its fields.
    return (await this.validation.transform(body ?? {}, { type: 'body', metatype: ChangePolicyRequestDto })) as ChangePolicyRequestDto;
  }
}

/** The policy as JSON, or as a policy file when the query asks for one, or the Accept header prefers one to JSON. */
function answer(view: PolicyVersionView, query: PolicyFormatQueryDto, req: Request, res: Response): PolicyVersionDto | string {
  const preferred = req.accepts(['application/json', ...POLICY_YAML_TYPES]);
  const yaml = query.format === 'yaml' || (query.format === undefined && preferred !== false && preferred !== 'application/json');
  if (!yaml) return PolicyVersionDto.of(view);
  res.type(`${POLICY_YAML}; charset=utf-8`);
  return policyToYaml(view);
}
