import { Module } from '@nestjs/common';
import { AddDoNotContactUseCase } from '../application/outreach/campaigns/add-do-not-contact.use-case';
import { CreateCampaignUseCase } from '../application/outreach/campaigns/create-campaign.use-case';
import { DeleteCampaignUseCase } from '../application/outreach/campaigns/delete-campaign.use-case';
import { GetCampaignUseCase } from '../application/outreach/campaigns/get-campaign.use-case';
import { ImportLeadsUseCase } from '../application/outreach/campaigns/import-leads.use-case';
import { ListCampaignTasksUseCase } from '../application/outreach/campaigns/list-campaign-tasks.use-case';
import { ListCampaignsUseCase } from '../application/outreach/campaigns/list-campaigns.use-case';
import { ListDoNotContactUseCase } from '../application/outreach/campaigns/list-do-not-contact.use-case';
import { PauseCampaignUseCase } from '../application/outreach/campaigns/pause-campaign.use-case';
import { RemoveDoNotContactUseCase } from '../application/outreach/campaigns/remove-do-not-contact.use-case';
import { StartCampaignUseCase } from '../application/outreach/campaigns/start-campaign.use-case';
import { UpdateCampaignUseCase } from '../application/outreach/campaigns/update-campaign.use-case';
import { CampaignRepository } from '../application/outreach/ports/campaign-repository.port';
import { CsvReader } from '../application/outreach/ports/csv-reader.port';
import { PapaparseCsvReader } from '../infrastructure/outreach/papaparse-csv-reader';
import { PostgresCampaignRepository } from '../infrastructure/persistence/repositories/postgres-campaign.repository';
import { CampaignsController } from '../interfaces/http/outreach/campaigns.controller';
import { DoNotContactController } from '../interfaces/http/outreach/do-not-contact.controller';
import { IdentityModule } from './identity.module';
import { ModelModule } from './model.module';
import { OutreachModule } from './outreach.module';
import { RunCampaignCycleUseCase } from '../application/outreach/run-campaign-cycle.use-case';
import { OutreachCyclesController } from '../interfaces/http/outreach/outreach-cycles.controller';
import { GetOutreachStatusUseCase } from '../application/outreach/get-outreach-status.use-case';
import { OutreachStatusController } from '../interfaces/http/outreach/outreach-status.controller';

/** Campaigns, their leads and tasks, their cycles and the do-not-contact list, over HTTP. */
@Module({
  imports: [IdentityModule, ModelModule, OutreachModule],
  controllers: [CampaignsController, DoNotContactController, OutreachCyclesController, OutreachStatusController],
  providers: [
    { provide: CampaignRepository, useClass: PostgresCampaignRepository },
    { provide: CsvReader, useClass: PapaparseCsvReader },
    CreateCampaignUseCase,
    ListCampaignsUseCase,
    GetCampaignUseCase,
    UpdateCampaignUseCase,
    DeleteCampaignUseCase,
    StartCampaignUseCase,
    PauseCampaignUseCase,
    ImportLeadsUseCase,
    ListCampaignTasksUseCase,
    ListDoNotContactUseCase,
    AddDoNotContactUseCase,
    RemoveDoNotContactUseCase,
    RunCampaignCycleUseCase,
    GetOutreachStatusUseCase,
  ],
})
export class CampaignsModule {}
