import { type DynamicModule, Global, Module } from '@nestjs/common';
import { OutreachSettings } from '../application/outreach/outreach-settings';
import { Clock } from '../application/shared/ports/clock.port';
import { Logger } from '../application/shared/ports/logger.port';
import { Metrics } from '../application/shared/ports/metrics.port';
import { Tracer } from '../application/shared/ports/tracer.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { NestLogger } from '../infrastructure/logging/nest-logger';
import { PrometheusMetrics } from '../infrastructure/metrics/prometheus-metrics';
import { SystemClock } from '../infrastructure/system-clock';
import { currentTracer } from '../infrastructure/telemetry/tracing';

/** What every module may need: the validated configuration, the clock, metrics, the tracer, the logger, the outreach settings. */
@Global()
@Module({})
export class CoreModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
        { provide: OutreachSettings, useValue: config.outreach satisfies OutreachSettings },
        { provide: Metrics, useFactory: () => new PrometheusMetrics() },
        { provide: Logger, useValue: new NestLogger() },
        { provide: Tracer, useValue: currentTracer() },
      ],
      exports: [AppConfig, Clock, OutreachSettings, Metrics, Logger, Tracer],
    };
  }
}
