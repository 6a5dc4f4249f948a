import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { DatabaseProbe } from '../../../application/health/ports/database-probe.port';
import { ApiErrors } from '../shared/api-errors.decorator';
import { ApiError } from '../shared/api-error';

class HealthResponseDto {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';

  @ApiProperty({ enum: ['up'] })
  database!: 'up';
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly database: DatabaseProbe) {}

  @Get()
  @ApiOperation({
    operationId: 'getHealth',
    summary: 'Liveness and database reachability',
    description: 'Answers 200 when the process serves requests and the database answers a query, 503 when it does not.',
  })
  @ApiOkResponse({ type: HealthResponseDto, description: 'Up, and the database answers' })
  @ApiErrors({ status: 503, description: 'HEALTH.DATABASE_UNAVAILABLE: the database is not answering' })
  async check(): Promise<HealthResponseDto> {
    try {
      await this.database.ping();
    } catch (error) {
      throw new ApiError(503, 'HEALTH.DATABASE_UNAVAILABLE', 'The database is not answering', { cause: error });
    }
    return { status: 'ok', database: 'up' };
  }
}
