import { Module } from '@nestjs/common';
import { ListNotificationsUseCase } from '../application/notifications/list-notifications.use-case';
import {
  GetNotificationPreferencesUseCase,
  NotificationChannelsInUse,
  UpdateNotificationPreferencesUseCase,
} from '../application/notifications/notification-preferences.use-case';
import { NotificationFeed } from '../application/notifications/ports/notification-feed.port';
import { NotificationPreferences } from '../application/notifications/ports/notification-preferences.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { PostgresNotificationFeed } from '../infrastructure/persistence/repositories/postgres-notification-feed';
import { PostgresNotificationPreferences } from '../infrastructure/persistence/repositories/postgres-notification-preferences';
import { NotificationsController } from '../interfaces/http/notifications/notifications.controller';
import { IdentityModule } from './identity.module';

/** A person's notifications over HTTP: the list, and which events reach them by email (docs/notifications.md). */
@Module({
  imports: [IdentityModule],
  controllers: [NotificationsController],
  providers: [
    { provide: NotificationPreferences, useClass: PostgresNotificationPreferences },
    { provide: NotificationFeed, useClass: PostgresNotificationFeed },
    {
      provide: NotificationChannelsInUse,
      useFactory: (config: AppConfig) => new NotificationChannelsInUse(config.notifications.email !== null),
      inject: [AppConfig],
    },
    GetNotificationPreferencesUseCase,
    UpdateNotificationPreferencesUseCase,
    ListNotificationsUseCase,
  ],
})
export class NotificationsModule {}
