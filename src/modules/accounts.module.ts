import { Module } from '@nestjs/common';
import { AddUserUseCase } from '../application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../application/identity/grant-admin-role.use-case';
import { ListAdminsUseCase } from '../application/identity/list-admins.use-case';
import { PasswordHasher } from '../application/identity/ports/password-hasher.port';
import { UserRepository } from '../application/identity/ports/user-repository.port';
import { RevokeAdminRoleUseCase } from '../application/identity/revoke-admin-role.use-case';
import { PostgresUserRepository } from '../infrastructure/persistence/repositories/postgres-user.repository';
import { ScryptPasswordHasher } from '../infrastructure/security/scrypt-password-hasher';
import { DataSource } from 'typeorm';
import { TokenBudget } from '../application/agent/ports/token-budget.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { TokenLedger } from '../infrastructure/persistence/repositories/token-ledger';
import { AuditLogModule } from './audit-log.module';
import { OpaqueTokens } from '../application/identity/ports/opaque-tokens.port';
import { PersonalAccessTokenRepository } from '../application/identity/ports/personal-access-token-repository.port';
import { PersonalAccessTokens } from '../application/identity/personal-access-tokens';
import { PostgresPersonalAccessTokenRepository } from '../infrastructure/persistence/repositories/postgres-personal-access-token.repository';
import { RandomOpaqueTokens } from '../infrastructure/security/opaque-tokens';

/**
 * Accounts, their roles, their personal access tokens and their daily chat budgets: behind
 * sign-up and sign-in over HTTP, and the operator's command.
 */
@Module({
  imports: [AuditLogModule],
  providers: [
    { provide: UserRepository, useClass: PostgresUserRepository },
    { provide: PasswordHasher, useFactory: () => new ScryptPasswordHasher() },
    AddUserUseCase,
    GrantAdminRoleUseCase,
    RevokeAdminRoleUseCase,
    ListAdminsUseCase,
    { provide: OpaqueTokens, useClass: RandomOpaqueTokens },
    { provide: PersonalAccessTokenRepository, useClass: PostgresPersonalAccessTokenRepository },
    PersonalAccessTokens,
    {
      provide: TokenBudget,
      useFactory: (dataSource: DataSource, config: AppConfig) => new TokenLedger(dataSource, config.chatDailyBudget, config.llmPricing),
      inject: [DataSource, AppConfig],
    },
  ],
  exports: [
    TokenBudget,
    UserRepository,
    PasswordHasher,
    OpaqueTokens,
    PersonalAccessTokens,
    AddUserUseCase,
    GrantAdminRoleUseCase,
    RevokeAdminRoleUseCase,
    ListAdminsUseCase,
  ],
})
export class AccountsModule {}
