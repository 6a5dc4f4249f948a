import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, Controller, type ExecutionContext, Get, Header, Injectable, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Metrics } from '../../../application/shared/ports/metrics.port';
import { ApiError } from '../shared/api-error';

/** Who may scrape: with a token (METRICS_TOKEN), only a caller that presents it; without, anyone. */
export abstract class MetricsAccess {
  abstract readonly token: string | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A guard, not a check in the handler: the handler's text/plain header would be on the error too. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly access: MetricsAccess) {}

  canActivate(context: ExecutionContext): boolean {
    const { token } = this.access;
    if (token === undefined) return true;
    const authorization = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    // Compared as digests: equal lengths, in constant time, whatever was sent.
    if (timingSafeEqual(digest(authorization), digest(`Bearer ${token}`))) return true;
    throw new ApiError(401, 'AUTH.UNAUTHENTICATED', 'GET /metrics needs Authorization: Bearer <the METRICS_TOKEN of this server>');
  }
}

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @UseGuards(MetricsTokenGuard)
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description:
      'HTTP requests by method, route and status, chat turns and outreach cycles by outcome, tool calls by tool and status, ' +
      'latency histograms of requests, turns, cycles, model calls and tool calls, tokens and their cost by provider and model, ' +
      'quota rejections, audit rows appended, and the Node.js process (process_* and nodejs_*). ' +
      'When the server has a METRICS_TOKEN, only `Authorization: Bearer <METRICS_TOKEN>` may scrape.',
  })
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } })
  scrape(): Promise<string> {
    return this.metrics.render();
  }
}
