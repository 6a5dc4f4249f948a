import { Module } from '@nestjs/common';
import { AdminReadRecorder } from '../application/audit/admin-read-recorder';
import { ExportAuditCheckpointsUseCase } from '../application/audit/export-audit-checkpoints.use-case';
import { ExportAuditLogUseCase } from '../application/audit/export-audit-log.use-case';
import { GetAuditLogUseCase } from '../application/audit/get-audit-log.use-case';
import { GetDecisionUseCase } from '../application/audit/get-decision.use-case';
import { ListAuditLogsUseCase } from '../application/audit/list-audit-logs.use-case';
import { ListDecisionsUseCase } from '../application/audit/list-decisions.use-case';
import { AuditProofsUseCase } from '../application/audit/audit-proofs.use-case';
import { AuditReceiptsUseCase } from '../application/audit/audit-receipts.use-case';
import { ExportAuditPackUseCase } from '../application/audit/export-audit-pack.use-case';
import { AuditEvidence } from '../application/audit/ports/audit-evidence.port';
import { PostgresAuditEvidence } from '../infrastructure/persistence/repositories/postgres-audit-evidence';
import { AuditReceiptsController } from '../interfaces/http/audit/audit-receipts.controller';
import { AuditReader } from '../application/audit/ports/audit-reader.port';
import { ChangePolicyUseCase } from '../application/policy/change-policy.use-case';
import { DryRunPolicyUseCase } from '../application/policy/dry-run-policy.use-case';
import { GetPolicyVersionUseCase } from '../application/policy/get-policy-version.use-case';
import { GetPolicyUseCase } from '../application/policy/get-policy.use-case';
import { ListPolicyVersionsUseCase } from '../application/policy/list-policy-versions.use-case';
import { VerifyAuditChainUseCase } from '../application/audit/verify-audit-chain.use-case';
import { PostgresAuditReader } from '../infrastructure/persistence/repositories/postgres-audit-reader';
import { AdminAuditLogsController } from '../interfaces/http/admin/admin-audit-logs.controller';
import { AdminDecisionsController } from '../interfaces/http/admin/admin-decisions.controller';
import { AdminPolicyController } from '../interfaces/http/admin/admin-policy.controller';
import { AdminPolicyDryRunController } from '../interfaces/http/admin/admin-policy-dry-run.controller';
import { AdminGuard } from '../interfaces/http/admin/admin.guard';
import { AdminBudgetsController } from '../interfaces/http/admin/admin-budgets.controller';
import { BudgetsModule } from './budgets.module';
import { IdentityModule } from './identity.module';
import { ModelModule } from './model.module';
import { PolicyModule } from './policy.module';

/**
 * `/admin`: the audit log, its checkpoints and the decision log, read, exported and verified
 * by admins, and a person's receipts of their own rows (/api/:userId/audit); the policy: the version in force, its history, a new version stored (PolicyModule's
 * store and policy in force), and a candidate's dry run over the recorded calls; each person's monthly budget.
 */
@Module({
  imports: [IdentityModule, ModelModule, PolicyModule, BudgetsModule],
  controllers: [
    AuditReceiptsController,
    AdminAuditLogsController,
    AdminDecisionsController,
    AdminPolicyDryRunController,
    AdminPolicyController,
    AdminBudgetsController,
  ],
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
    AuditProofsUseCase,
    { provide: AuditEvidence, useClass: PostgresAuditEvidence },
    AuditReceiptsUseCase,
    ExportAuditPackUseCase,
    DryRunPolicyUseCase,
    GetPolicyUseCase,
    GetPolicyVersionUseCase,
    ListPolicyVersionsUseCase,
    ChangePolicyUseCase,
    AdminGuard,
  ],
})
export class AdminModule {}
