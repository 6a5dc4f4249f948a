import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../infrastructure/config/app-config';
import { AccountsModule } from './accounts.module';
import { CoreModule } from './core.module';
import { PersistenceModule } from './persistence.module';

/** The operator's command (`src/admin.ts`): accounts and roles on the database, without HTTP. */
@Module({})
export class AdminCommandModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AdminCommandModule,
      imports: [CoreModule.register(config), PersistenceModule, AccountsModule],
    };
  }
}
