import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../infrastructure/config/app-config';
import { CoreModule } from './core.module';
import { loggingModule } from './logging';
import { NotificationEmailModule } from './notification-email.module';
import { OutreachModule } from './outreach.module';
import { PersistenceModule } from './persistence.module';
import { WebhookDeliveryModule } from './webhooks.module';

/** A worker process: the outreach controller, webhook delivery and the mailing of notifications (when SMTP_URL is set), without HTTP. */
@Module({})
export class WorkerModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.register(config),
        loggingModule(config),
        PersistenceModule,
        OutreachModule,
        NotificationEmailModule.register(config),
        WebhookDeliveryModule,
      ],
    };
  }
}
