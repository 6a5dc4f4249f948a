import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Metrics } from '../../../application/shared/ports/metrics.port';
import { ApiErrors } from '../shared/api-errors.decorator';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @ApiErrors(500)
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'Chat turns and outreach cycles by outcome, tool calls by tool and status, latency histograms of turns, cycles, ' +
      'model calls and tool calls, tokens by provider, quota rejections, audit rows appended, and the process.',
  })
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } })
  scrape(): Promise<string> {
    return this.metrics.render();
  }
}
