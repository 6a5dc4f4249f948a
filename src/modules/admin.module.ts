import { Module } from '@nestjs/common';
import { AdminReadRecorder } from '../application/audit/admin-read-recorder';
import { ExportAuditCheckpointsUseCase } from '../application/audit/export-audit-checkpoints.use-case';
import { ExportAuditLogUseCase } from '../application/audit/export-audit-log.use-case';
import { GetAuditLogUseCase } from '../application/audit/get-audit-log.use-case';
import { GetDecisionUseCase } from '../application/audit/get-decision.use-case';
import { ListAuditLogsUseCase } from '../application/audit/list-audit-logs.use-case';
import { ListDecisionsUseCase } from '../application/audit/list-decisions.use-case';
import { AuditReader } from '../application/audit/ports/audit-reader.port';
import { VerifyAuditChainUseCase } from '../application/audit/verify-audit-chain.use-case';
import { PostgresAuditReader } from '../infrastructure/persistence/repositories/postgres-audit-reader';
import { AdminAuditLogsController } from '../interfaces/http/admin/admin-audit-logs.controller';
import { AdminDecisionsController } from '../interfaces/http/admin/admin-decisions.controller';
import { AdminGuard } from '../interfaces/http/admin/admin.guard';
import { IdentityModule } from './identity.module';
import { ModelModule } from './model.module';

/** `/admin`: the audit log, its checkpoints and the decision log, read, exported and verified by admins. */
@Module({
  imports: [IdentityModule, ModelModule],
  controllers: [AdminAuditLogsController, AdminDecisionsController],
  providers: [
    { provide: AuditReader, useClass: PostgresAuditReader },
    AdminReadRecorder,
    ListAuditLogsUseCase,
    GetAuditLogUseCase,
    ListDecisionsUseCase,
    GetDecisionUseCase,
    ExportAuditLogUseCase,
    ExportAuditCheckpointsUseCase,
    VerifyAuditChainUseCase,
    AdminGuard,
  ],
})
export class AdminModule {}
