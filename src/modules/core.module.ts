import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock } from '../application/shared/ports/clock.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { SystemClock } from '../infrastructure/system-clock';

/** What every module may need: the validated configuration and the clock. */
@Global()
@Module({})
export class CoreModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
      ],
      exports: [AppConfig, Clock],
    };
  }
}
