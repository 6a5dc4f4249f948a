import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DRY_RUN_CALLS_DEFAULT, DRY_RUN_CALLS_MAX, DryRunPolicyUseCase } from '../../../application/policy/dry-run-policy.use-case';
import { BearerAuthGuard } from '../guards/bearer-auth.guard';
import { RequiredScope } from '../guards/required-scope';
import { POLICY_REFUSED_RESPONSE } from '../shared/policy-refused-response.dto';
import { RateLimit } from '../shared/rate-limit';
import { AdminGuard } from './admin.guard';
import { PolicyDryRunReportDto, PolicyDryRunRequestDto } from './admin-policy-dry-run.dto';

/**
 * A candidate policy tried on the recorded tool calls, for admins, before it is stored. It
 * reads the audit log (so it takes `audit:read`) and writes nothing, not even a record of
 * its read: it shows who called which tool when, never a call's arguments or result. Rate limited per address, unlike the audit log's pages:
 * one request reads up to 10 000 rows and decides each call twice.
 */
@ApiTags('admin')
@RequiredScope('audit:read')
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/policy/dry-run')
export class AdminPolicyDryRunController {
  constructor(private readonly dryRun: DryRunPolicyUseCase) {}

  @Post()
  @HttpCode(200)
  @RateLimit('default')
  @ApiOperation({
    operationId: 'runPolicyDryRun',
    summary: 'What a candidate policy would decide differently over the recorded tool calls',
    description:
      `Reads the newest \`limit\` tool calls (default ${DRY_RUN_CALLS_DEFAULT}, at most ${DRY_RUN_CALLS_MAX}) of the chat, MCP ` +
      'and outreach, each once, and decides each with the policy in force and with the candidate, at the time it was recorded. ' +
      'Reports how many would change, by (from, to, the candidate’s deciding rule), with up to 20 example calls each: their ' +
      'sequence number, time, source, tool and actor, never their arguments, which may hold personal data. Limits are counted ' +
      'over the sample alone, in time order: calls older than it count toward no window. Writes nothing: no version, no count ' +
      'against any limit, no audit row.',
  })
  @ApiOkResponse({ type: PolicyDryRunReportDto, description: 'The report' })
  @ApiResponse(POLICY_REFUSED_RESPONSE)
  async run(@Body() body: PolicyDryRunRequestDto): Promise<PolicyDryRunReportDto> {
    const report = await this.dryRun.execute({
      candidate: { rules: body.rules },
      limit: body.limit ?? DRY_RUN_CALLS_DEFAULT,
    });
    return PolicyDryRunReportDto.of(report);
  }
}
