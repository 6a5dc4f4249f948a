import { type DynamicModule, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import {
  DeliverNotificationEmailsUseCase,
  NotificationEmailSettings,
} from '../application/notifications/deliver-notification-emails.use-case';
import { NotificationEmailOutbox } from '../application/notifications/ports/notification-email-outbox.port';
import { NotificationMailer } from '../application/notifications/ports/notification-mailer.port';
import type { AppConfig } from '../infrastructure/config/app-config';
import { SmtpNotificationMailer } from '../infrastructure/notifications/smtp-notification-mailer';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { PostgresNotificationEmailOutbox } from '../infrastructure/persistence/repositories/postgres-notification-email-outbox';

/** Closes the SMTP connection at shutdown, after the job stopped (its beforeApplicationShutdown waits for a run under way). */
@Injectable()
class MailerLifecycle implements OnApplicationShutdown {
  constructor(private readonly mailer: NotificationMailer) {}

  onApplicationShutdown(): void {
    if (this.mailer instanceof SmtpNotificationMailer) this.mailer.close();
  }
}

/**
 * Notifications by email (docs/notifications.md): every process that loads it (a server, a
 * worker) offers to mail what waits, at start and every NOTIFY_POLL_MS; the mailboxes are
 * claimed in the database, so any number of processes share the work. Without SMTP_URL it
 * provides nothing: email notifications are off, and nothing polls.
 */
@Module({})
export class NotificationEmailModule {
  static register(config: AppConfig): DynamicModule {
    const email = config.notifications.email;
    if (email === null) return { module: NotificationEmailModule };
    return {
      module: NotificationEmailModule,
      providers: [
        { provide: NotificationEmailOutbox, useClass: PostgresNotificationEmailOutbox },
        { provide: NotificationMailer, useFactory: () => new SmtpNotificationMailer({ url: email.url, from: email.from }) },
        {
          provide: NotificationEmailSettings,
          useValue: new NotificationEmailSettings(config.publicBaseUrl, email.intervalMinutes * 60_000),
        },
        DeliverNotificationEmailsUseCase,
        MailerLifecycle,
        periodicJobProvider({
          what: 'mailing notifications',
          context: 'Notifications',
          uses: DeliverNotificationEmailsUseCase,
          intervalMs: (settings) => settings.notifications.pollMs,
          run: (delivery) => delivery.run(),
        }),
      ],
      exports: [DeliverNotificationEmailsUseCase],
    };
  }
}
