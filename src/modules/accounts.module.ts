import { Module } from '@nestjs/common';
import { AddUserUseCase } from '../application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../application/identity/grant-admin-role.use-case';
import { ListAdminsUseCase } from '../application/identity/list-admins.use-case';
import { PasswordHasher } from '../application/identity/ports/password-hasher.port';
import { UserRepository } from '../application/identity/ports/user-repository.port';
import { RevokeAdminRoleUseCase } from '../application/identity/revoke-admin-role.use-case';
import { PostgresUserRepository } from '../infrastructure/persistence/repositories/postgres-user.repository';
import { ScryptPasswordHasher } from '../infrastructure/security/scrypt-password-hasher';
import { AuditLogModule } from './audit-log.module';
import { OpaqueTokens } from '../application/identity/ports/opaque-tokens.port';
import { PersonalAccessTokenRepository } from '../application/identity/ports/personal-access-token-repository.port';
import { PersonalAccessTokens } from '../application/identity/personal-access-tokens';
import { PostgresPersonalAccessTokenRepository } from '../infrastructure/persistence/repositories/postgres-personal-access-token.repository';
import { RandomOpaqueTokens } from '../infrastructure/security/opaque-tokens';

/**
 * Accounts, their roles and their personal access tokens: behind
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
  ],
  exports: [
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
