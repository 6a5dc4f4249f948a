import type { DataSource } from 'typeorm';
import type { Clock } from '../../src/application/shared/ports/clock.port';
import { DeliverWebhooksUseCase } from '../../src/application/webhooks/deliver-webhooks.use-case';
import type { WebhookSettings } from '../../src/application/webhooks/webhook-settings';
import type { NotificationEvent } from '../../src/domain/notifications/notification';
import type { RetryPolicy } from '../../src/domain/webhooks/webhook-delivery';
import type { WebhookEndpoint, WebhookOwner } from '../../src/domain/webhooks/webhook-endpoint';
import { PostgresWebhookEndpoints } from '../../src/infrastructure/persistence/repositories/postgres-webhook-endpoints';
import { PostgresWebhookOutbox } from '../../src/infrastructure/persistence/repositories/postgres-webhook-outbox';
import { enqueueNotification } from '../../src/infrastructure/persistence/tables/notifications';
import { GuardedOutboundFetch } from '../../src/infrastructure/security/guarded-outbound-fetch';
import { StandardWebhookSigner } from '../../src/infrastructure/security/standard-webhook-signer';
import { WebhookSecretBox } from '../../src/infrastructure/security/webhook-secret-box';
import { RecordingLogger } from '../fakes/recording-logger';
import { RecordingMetrics } from '../fakes/recording-metrics';
import { TEST_JWT_SECRET } from './test-app';
import type { WebhookReceiver } from './webhook-receiver';

/** The adapters of webhook delivery on a test database, and deliverers over the guarded fetch to a local receiver. */
export interface WebhookRig {
  readonly endpoints: PostgresWebhookEndpoints;
  readonly outbox: PostgresWebhookOutbox;
  readonly signer: StandardWebhookSigner;
  /** A deliverer, as each process has one: its own fetcher, logger and slots. */
  deliverer(clock: Clock, options?: { retry?: RetryPolicy; timeoutMs?: number; concurrency?: number }): Deliverer;
  /** Registers an endpoint with a secret the test knows. */
  register(
    owner: WebhookOwner,
    url: string,
    options?: { events?: NotificationEvent[]; allPeople?: boolean; createdBy?: string },
  ): Promise<Registered>;
  /** Writes a notification as a producer does, in a transaction of its own. @returns its tag: its subject's id, in the body's `data.subject.id` */
  notify(recipientId: string | null, event?: NotificationEvent): Promise<string>;
}

export interface Registered {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
}

export interface Deliverer {
  readonly sut: DeliverWebhooksUseCase;
  readonly logger: RecordingLogger;
  /** One poll, and the work it started, to its end. */
  poll(): Promise<number>;
}

export function webhookRig(database: () => DataSource, receiver: () => WebhookReceiver, privateHosts: ReadonlySet<string>): WebhookRig {
  const box = WebhookSecretBox.derive(TEST_JWT_SECRET);
  const signer = new StandardWebhookSigner();
  const resolve = () => Promise.resolve(['127.0.0.1']);
  let endpoints: PostgresWebhookEndpoints | undefined;
  let outbox: PostgresWebhookOutbox | undefined;
  const rig: WebhookRig = {
    get endpoints() {
      return (endpoints ??= new PostgresWebhookEndpoints(database(), box));
    },
    get outbox() {
      return (outbox ??= new PostgresWebhookOutbox(database(), box));
    },
    signer,
    deliverer(clock, options = {}) {
      const settings: WebhookSettings = {
        publicBaseUrl: 'https://bridle.example',
        privateHosts,
        endpointsPerOwner: 10,
        timeoutMs: options.timeoutMs ?? 2_000,
        concurrency: options.concurrency ?? 4,
        retry: options.retry ?? { delaysMs: [1_000], windowMs: 3_000 },
        retentionDays: 30,
        legalHold: false,
      };
      const fetcher = new GuardedOutboundFetch({ resolve, privateHosts, ca: receiver().fixture.ca });
      const logger = new RecordingLogger();
      const sut = new DeliverWebhooksUseCase(rig.outbox, fetcher, signer, settings, new RecordingMetrics(), clock, logger);
      return {
        sut,
        logger,
        poll: async () => {
          const claimed = await sut.run();
          await sut.idle();
          return claimed;
        },
      };
    },
    async register(owner, url, options = {}) {
      const secret = signer.newSecret();
      const endpoint = await rig.endpoints.create(
        {
          owner,
          createdBy: options.createdBy ?? (owner.kind === 'person' ? owner.userId : unnamed()),
          url,
          description: '',
          events: options.events ?? null,
          allPeople: options.allPeople ?? false,
          secret,
        },
        10,
        new Date(),
      );
      if (!endpoint) throw new Error('not registered');
      return { endpoint, secret };
    },
    async notify(recipientId, event = 'draft.awaiting_review') {
      const id = crypto.randomUUID();
      await database().transaction((manager) =>
        enqueueNotification(manager, {
          recipientId,
          event,
          subject: { kind: 'draft', id },
          facts: { tag: id },
          at: new Date(),
        }),
      );
      return id;
    },
  };
  return rig;
}

/** The tag (`notify`) of each webhook, in the order given. */
export function tagsOf(webhooks: readonly { readonly data: { readonly [field: string]: unknown } }[]): string[] {
  return webhooks.map((webhook) => (webhook.data.subject as { id: string }).id);
}

function unnamed(): never {
  throw new Error('a deployment endpoint needs createdBy: an admin');
}
