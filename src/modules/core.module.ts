import { type DynamicModule, Global, Module } from '@nestjs/common';
import { OutreachSettings } from '../application/outreach/outreach-settings';
import { Clock } from '../application/shared/ports/clock.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { SystemClock } from '../infrastructure/system-clock';

/** What every module may need: the validated configuration, the clock, the outreach settings. */
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
      ],
      exports: [AppConfig, Clock, OutreachSettings],
    };
  }
}
