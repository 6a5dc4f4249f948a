import { Module } from '@nestjs/common';
import { CampaignRepository } from '../application/outreach/ports/campaign-repository.port';
import { UnsubscribeUseCase } from '../application/outreach/unsubscribe/unsubscribe.use-case';
import { PostgresCampaignRepository } from '../infrastructure/persistence/repositories/postgres-campaign.repository';
import { UnsubscribeController } from '../interfaces/http/outreach/unsubscribe.controller';
import { AccountsModule } from './accounts.module';
import { AuditLogModule } from './audit-log.module';
import { OutreachModule } from './outreach.module';

/** The unsubscribe links of outreach emails, served with no login (the links themselves come from OutreachModule). */
@Module({
  imports: [AccountsModule, AuditLogModule, OutreachModule],
  controllers: [UnsubscribeController],
  providers: [{ provide: CampaignRepository, useClass: PostgresCampaignRepository }, UnsubscribeUseCase],
})
export class UnsubscribeModule {}
