import { type BeforeApplicationShutdown, Injectable, Logger, Module } from '@nestjs/common';
import { DeliverWebhooksUseCase } from '../application/webhooks/deliver-webhooks.use-case';
import { WebhookEndpointRepository } from '../application/webhooks/ports/webhook-endpoint-repository.port';
import { WebhookOutbox } from '../application/webhooks/ports/webhook-outbox.port';
import { WebhookSigner } from '../application/webhooks/ports/webhook-signer.port';
import { WebhookEndpoints } from '../application/webhooks/webhook-endpoints';
import { WebhookSettings } from '../application/webhooks/webhook-settings';
import { AppConfig } from '../infrastructure/config/app-config';
import { resolveJwtSecret } from '../infrastructure/config/jwt-secret';
import { periodicJobProvider } from '../infrastructure/periodic-job';
import { PostgresWebhookEndpoints } from '../infrastructure/persistence/repositories/postgres-webhook-endpoints';
import { PostgresWebhookOutbox } from '../infrastructure/persistence/repositories/postgres-webhook-outbox';
import { StandardWebhookSigner } from '../infrastructure/security/standard-webhook-signer';
import { WebhookSecretBox } from '../infrastructure/security/webhook-secret-box';
import { AdminWebhooksController } from '../interfaces/http/webhooks/admin-webhooks.controller';
import { WebhooksController } from '../interfaces/http/webhooks/webhooks.controller';
import { AuditLogModule } from './audit-log.module';
import { IdentityModule } from './identity.module';
import { OutboundFetchModule } from './outbound-fetch.module';

/** How often each process prunes the delivery log. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** Waits, at shutdown, for deliveries under way: their outcome is recorded before the database closes. */
@Injectable()
class WebhookDeliveryLifecycle implements BeforeApplicationShutdown {
  constructor(private readonly delivery: DeliverWebhooksUseCase) {}

  beforeApplicationShutdown(): Promise<void> {
    return this.delivery.drain();
  }
}

/**
 * Delivering webhooks (docs/webhooks.md), in every process that loads it (each server and each
 * worker): every WEBHOOK_POLL_MS a poll claims due endpoints under a lease, so any process
 * delivers and none twice at once; hourly, the delivery log is pruned.
 */
@Module({
  imports: [OutboundFetchModule],
  providers: [
    {
      provide: WebhookSecretBox,
      useFactory: async (config: AppConfig) =>
        WebhookSecretBox.derive(await resolveJwtSecret(config, (message) => new Logger('Webhooks').warn(message))),
      inject: [AppConfig],
    },
    {
      provide: WebhookSettings,
      useFactory: (config: AppConfig): WebhookSettings => ({
        publicBaseUrl: config.publicBaseUrl,
        privateHosts: config.outboundPrivateHosts,
        endpointsPerOwner: config.webhooks.endpointsPerOwner,
        timeoutMs: config.webhooks.timeoutMs,
        concurrency: config.webhooks.concurrency,
        retry: config.webhooks.retry,
        retentionDays: config.webhooks.retentionDays,
        legalHold: config.retention.legalHold,
      }),
      inject: [AppConfig],
    },
    { provide: WebhookSigner, useClass: StandardWebhookSigner },
    { provide: WebhookOutbox, useClass: PostgresWebhookOutbox },
    DeliverWebhooksUseCase,
    WebhookDeliveryLifecycle,
    periodicJobProvider({
      what: 'delivering webhooks',
      context: 'Webhooks',
      uses: DeliverWebhooksUseCase,
      intervalMs: (config) => config.webhooks.pollMs,
      run: (delivery) => delivery.run(),
    }),
    periodicJobProvider({
      what: 'pruning the webhook delivery log',
      context: 'Webhooks',
      uses: DeliverWebhooksUseCase,
      intervalMs: () => PRUNE_INTERVAL_MS,
      run: (delivery) => delivery.prune(),
    }),
  ],
  exports: [WebhookSecretBox, WebhookSettings, WebhookSigner],
})
export class WebhookDeliveryModule {}

/** People's and the deployment's webhook endpoints over HTTP; delivery with them. */
@Module({
  imports: [WebhookDeliveryModule, IdentityModule, AuditLogModule],
  controllers: [WebhooksController, AdminWebhooksController],
  providers: [{ provide: WebhookEndpointRepository, useClass: PostgresWebhookEndpoints }, WebhookEndpoints],
})
export class WebhooksModule {}
