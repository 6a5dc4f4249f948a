import { AccountNotFoundError, normalizeEmail, type Role } from '../../domain/identity/user';
import type { AuditLog, ToolAuditEntry } from '../audit/ports/audit-log.port';
import type { Clock } from '../shared/ports/clock.port';
import { auditedChange } from '../audit/audited-change';
import { type AccountView, toAccountView } from './account-view';
import type { UserRepository } from './ports/user-repository.port';

export interface AdminRoleInput {
  readonly email: string;
  /** Who ran the command, as the server's operating system names them: recorded, not checked. */
  readonly operator: string;
}

export interface AdminRoleChange {
  readonly account: AccountView;
  readonly previousRole: Role;
  /** False when the account already held the role; the request is audited all the same. */
  readonly changed: boolean;
}

export type AdminRoleTool = 'grant_admin' | 'revoke_admin';

/**
 * Sets an account's role, audited like a tool with a side effect: the pending row is
 * committed before the role changes, so a crash in between leaves a pending row, never a
 * change nobody recorded. The row's actor is the account whose role changes: the operator
 * has no account, and is named in the arguments.
 */
export async function changeAdminRole(
  ports: { readonly users: UserRepository; readonly auditLog: AuditLog; readonly clock: Clock },
  tool: AdminRoleTool,
  input: AdminRoleInput,
): Promise<AdminRoleChange> {
  const role: Role = tool === 'grant_admin' ? 'admin' : 'user';
  const email = normalizeEmail(input.email);
  const user = await ports.users.findByEmail(email);
  if (!user) throw new AccountNotFoundError(email);

  const entry: ToolAuditEntry = {
    source: 'admin',
    actorId: user.id,
    tool,
    arguments: { email, operator: input.operator },
    securityEvents: [],
  };
  await auditedChange(ports, entry, async () => {
    if (user.role !== role) await ports.users.updateRole(user.id, role);
    return { result: { previousRole: user.role, role }, value: undefined };
  });
  return { account: toAccountView({ ...user, role }), previousRole: user.role, changed: user.role !== role };
}
