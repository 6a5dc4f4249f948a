import { Module } from '@nestjs/common';
import { OutboundFetch } from '../application/shared/ports/outbound-fetch.port';
import { RateCounter } from '../application/shared/ports/rate-counter.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { DatabaseRateCounter } from '../infrastructure/persistence/repositories/database-rate-counter';
import { GuardedOutboundFetch, OutboundNetwork } from '../infrastructure/security/guarded-outbound-fetch';

/**
 * Fetches to addresses others chose, guarded against SSRF (GuardedOutboundFetch), and the
 * fleet-wide counters that limit them: for client metadata documents now, webhooks later.
 * OutboundNetwork (the resolver, any extra certificate authority) is what tests replace.
 */
@Module({
  providers: [
    { provide: OutboundNetwork, useValue: new OutboundNetwork() },
    {
      provide: OutboundFetch,
      useFactory: (network: OutboundNetwork, config: AppConfig) =>
        new GuardedOutboundFetch({ resolve: network.resolve, ca: network.ca, privateHosts: config.outboundPrivateHosts }),
      inject: [OutboundNetwork, AppConfig],
    },
    { provide: RateCounter, useClass: DatabaseRateCounter },
  ],
  exports: [OutboundFetch, RateCounter],
})
export class OutboundFetchModule {}
