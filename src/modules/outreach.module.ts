import { WorkerHeartbeats } from '../application/outreach/ports/worker-heartbeats.port';
import { PostgresWorkerHeartbeats } from '../infrastructure/persistence/repositories/postgres-worker-heartbeats';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OutreachChannels } from '../application/outreach/outreach-channels';
import { OutreachWorker } from '../application/outreach/outreach-worker';
import { SecretStore } from '../application/outreach/ports/channels.port';
import { QuotaDeferral } from '../application/outreach/outreach-quota-deferral';
import { ReviewHold } from '../application/outreach/outreach-review-hold';
import { SessionRefresh } from '../application/outreach/outreach-session-refresh';
import { OutreachCycleStore } from '../application/outreach/ports/outreach-cycle-store.port';
import { OutreachActionPlanner } from '../application/outreach/outreach-action-planner';
import { OutreachActionRunner } from '../application/outreach/outreach-action-runner';
import { RunOutreachCycleUseCase } from '../application/outreach/run-outreach-cycle.use-case';
import { SweepStaleActionsUseCase } from '../application/outreach/sweep-stale-actions.use-case';
import { AppConfig } from '../infrastructure/config/app-config';
import { EnvironmentSecretStore, SandboxSecretStore } from '../infrastructure/outreach/secret-stores';
import { PeriodicJob } from '../infrastructure/periodic-job';
import { erasedAddressKeyProvider } from './erased-address-key.provider';
import { PostgresOutreachCycleStore } from '../infrastructure/persistence/repositories/postgres-outreach-cycle-store';
import { OutreachDraftStore } from '../application/outreach/ports/outreach-draft-store.port';
import { PostgresOutreachDraftStore } from '../infrastructure/persistence/repositories/postgres-outreach-draft-store';
import { UnsubscribeLinks } from '../application/outreach/unsubscribe/unsubscribe-links';
import { UNSUBSCRIBE_PURPOSE } from '../domain/outreach/unsubscribe';
import { resolveJwtSecret } from '../infrastructure/config/jwt-secret';
import { HmacLinkSigner } from '../infrastructure/security/hmac-link-signer';
import { ModelModule } from './model.module';
import { PolicyModule } from './policy.module';
import { OUTREACH_CHANNEL_PROVIDERS } from './outreach-channels.providers';
import { ActionCatalog } from '../domain/outreach/action-catalog';

/**
 * Runs an outreach worker inside this process when OUTREACH_WORKER=true; otherwise still
 * sweeps actions left in flight (at start and periodically), since HTTP-run cycles can be
 * cut off too. Closes the channels on shutdown.
 */
@Injectable()
class OutreachLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Outreach');
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;
  private readonly sweeping: PeriodicJob;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly worker: OutreachWorker,
    sweeper: SweepStaleActionsUseCase,
    private readonly channels: OutreachChannels,
  ) {
    this.sweeping = new PeriodicJob('sweeping actions left in flight', () => sweeper.run(), this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.config.outreach.worker) {
      this.running = this.worker.run(this.config.outreach, this.stop.signal, `${hostname().slice(0, 40)}:${process.pid}`);
      this.logger.log('An outreach worker runs in this process (OUTREACH_WORKER=true)');
      return;
    }
    this.sweeping.start(this.config.outreach.sweepIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await Promise.all([this.running, this.sweeping.stop()]);
    for (const channel of this.channels.all()) await channel.close?.();
  }
}

/**
 * The outreach controller: cycles, the sweeper, the worker, and the channels they act
 * through. No HTTP here: worker processes load it as it is.
 */
@Module({
  imports: [ModelModule, PolicyModule],
  providers: [
    erasedAddressKeyProvider,
    { provide: OutreachCycleStore, useClass: PostgresOutreachCycleStore },
    { provide: OutreachDraftStore, useClass: PostgresOutreachDraftStore },
    ...OUTREACH_CHANNEL_PROVIDERS,
    {
      provide: SecretStore,
      useFactory: (config: AppConfig): SecretStore =>
        config.outreach.linkedin.kind === 'sandbox' ? new SandboxSecretStore(config.outreach.secretNames) : new EnvironmentSecretStore(),
      inject: [AppConfig],
    },
    {
      // Its key is derived from the service's secret, so every server and worker that shares JWT_SECRET reads every link.
      provide: UnsubscribeLinks,
      useFactory: async (config: AppConfig): Promise<UnsubscribeLinks> => {
        const logger = new Logger('Outreach');
        const secret = await resolveJwtSecret(config, (message) => logger.warn(message));
        return new UnsubscribeLinks(HmacLinkSigner.derive(secret, UNSUBSCRIBE_PURPOSE), config.publicBaseUrl);
      },
      inject: [AppConfig],
    },
    QuotaDeferral,
    ReviewHold,
    SessionRefresh,
    OutreachActionPlanner,
    OutreachActionRunner,
    RunOutreachCycleUseCase,
    SweepStaleActionsUseCase,
    OutreachWorker,
    { provide: WorkerHeartbeats, useClass: PostgresWorkerHeartbeats },
    OutreachLifecycle,
  ],
  exports: [RunOutreachCycleUseCase, WorkerHeartbeats, UnsubscribeLinks, OutreachDraftStore, OutreachChannels, ActionCatalog],
})
export class OutreachModule {}
