import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { GetOutreachStatusUseCase } from '../../../application/outreach/get-outreach-status.use-case';
import { WORKER_ACTIVE_WITHIN_MS } from '../../../application/outreach/ports/worker-heartbeats.port';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { UserPathDto } from '../todo/task.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

export class OutreachStatusDto {
  @ApiProperty({
    example: 1,
    description: `Outreach workers that reported within the last ${WORKER_ACTIVE_WITHIN_MS / 1000} s. 0: active campaigns move only when a cycle is run by hand`,
  })
  activeWorkers!: number;
}

@ApiTags('campaigns')
@ApiErrors(400)
@RequiredScope('campaigns:read', 'campaigns:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/outreach/status')
export class OutreachStatusController {
  constructor(private readonly status: GetOutreachStatusUseCase) {}

  @Get()
  @ApiOperation({
    operationId: 'getOutreachStatus',
    summary: 'Whether an outreach worker is running',
    description: 'Workers (in a server process or on their own) report every few seconds; this counts the recent ones.',
  })
  @ApiOkResponse({ type: OutreachStatusDto, description: 'The outreach status' })
  // The path names the caller (OwnUserGuard); the answer is the same for everyone.
  get(@Param() _path: UserPathDto): Promise<OutreachStatusDto> {
    return this.status.execute();
  }
}
