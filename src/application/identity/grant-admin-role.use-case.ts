import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { type AdminRoleChange, type AdminRoleInput, changeAdminRole } from './admin-role';
import { UserRepository } from './ports/user-repository.port';

/** The operator makes an account an admin; it holds from the account's next request. */
@Injectable()
export class GrantAdminRoleUseCase {
  constructor(
    private readonly users: UserRepository,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** @throws AccountNotFoundError, InvalidEmailError */
  execute(input: AdminRoleInput): Promise<AdminRoleChange> {
    return changeAdminRole({ users: this.users, auditLog: this.auditLog, clock: this.clock }, 'grant_admin', input);
  }
}
