import { Module } from '@nestjs/common';
import { AddUserUseCase } from '../application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../application/identity/grant-admin-role.use-case';
import { ListAdminsUseCase } from '../application/identity/list-admins.use-case';
import { PasswordHasher } from '../application/identity/ports/password-hasher.port';
import { UserRepository } from '../application/identity/ports/user-repository.port';
import { RevokeAdminRoleUseCase } from '../application/identity/revoke-admin-role.use-case';
import { TypeOrmUserRepository } from '../infrastructure/persistence/repositories/typeorm-user.repository';
import { ScryptPasswordHasher } from '../infrastructure/security/scrypt-password-hasher';
import { AuditLogModule } from './audit-log.module';

/** Accounts and their roles: behind sign-up and sign-in over HTTP, and the operator's command. */
@Module({
  imports: [AuditLogModule],
  providers: [
    { provide: UserRepository, useClass: TypeOrmUserRepository },
    { provide: PasswordHasher, useClass: ScryptPasswordHasher },
    AddUserUseCase,
    GrantAdminRoleUseCase,
    RevokeAdminRoleUseCase,
    ListAdminsUseCase,
  ],
  exports: [UserRepository, PasswordHasher, AddUserUseCase, GrantAdminRoleUseCase, RevokeAdminRoleUseCase, ListAdminsUseCase],
})
export class AccountsModule {}
