import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { AdminRoleChange } from '../../application/identity/admin-role';
import { AddUserUseCase } from '../../application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../../application/identity/grant-admin-role.use-case';
import { ListAdminsUseCase } from '../../application/identity/list-admins.use-case';
import { RevokeAdminRoleUseCase } from '../../application/identity/revoke-admin-role.use-case';
import { DomainError } from '../../domain/shared/domain-error';

export type AdminCommand =
  | { readonly name: 'grant' | 'revoke'; readonly email: string }
  | { readonly name: 'list' }
  | { readonly name: 'add-user'; readonly email: string; readonly passwordFromStdin: boolean }
  | { readonly name: 'help' };

export const ADMIN_USAGE = `Usage: npm run admin -- <command>   (node dist/admin.js <command>)

  grant <email>                        give the account the admin role
  revoke <email>                       take the admin role away
  list                                 the accounts that hold the admin role
  add-user <email> [--password-stdin]  create an account with the user role; prints a
                                       generated password once, or reads the password
                                       from the first line of standard input

Runs against the configured database (DATABASE_URL, or the embedded one in BRIDLE_DATA_DIR,
which only one process may open: stop the server first). Grants and revokes are audited.
Exit status: 0 done, 1 refused or failed, 2 usage error.`;

/** A command line that names no command this knows; answered with the usage, exit status 2. */
export class AdminUsageError extends Error {}

export function parseAdminCommand(argv: readonly string[]): AdminCommand {
  const [name, ...rest] = argv;
  const flags = rest.filter((arg) => arg.startsWith('-'));
  const args = rest.filter((arg) => !arg.startsWith('-'));
  const expect = (count: number, allowedFlags: readonly string[] = []) => {
    const unknown = flags.find((flag) => !allowedFlags.includes(flag));
    if (unknown !== undefined) throw new AdminUsageError(`${name} does not take ${unknown}`);
    if (args.length !== count) {
      throw new AdminUsageError(count === 0 ? `${name} takes no argument` : `${name} takes exactly one email address`);
    }
  };
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { name: 'help' };
    case 'grant':
    case 'revoke':
      expect(1);
      return { name, email: args[0] };
    case 'list':
      expect(0);
      return { name };
    case 'add-user':
      expect(1, ['--password-stdin']);
      return { name, email: args[0], passwordFromStdin: flags.includes('--password-stdin') };
    default:
      throw new AdminUsageError(`Unknown command "${name}"`);
  }
}

/** The command's surroundings: the entry point passes the process's own. */
export interface AdminCommandIo {
  /** Who runs the command, as the operating system names them; recorded on audit rows. */
  readonly operator: string;
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
}

/** Runs one command through the application's use cases. @returns the exit status. */
export async function runAdminCommand(
  command: Exclude<AdminCommand, { name: 'help' }>,
  app: Pick<INestApplicationContext, 'get'>,
  io: AdminCommandIo,
): Promise<number> {
  try {
    switch (command.name) {
      case 'grant': {
        const change = await app.get(GrantAdminRoleUseCase).execute({ email: command.email, operator: io.operator });
        io.out(describeChange(change, 'is now an admin, from its next request', 'was already an admin; nothing changed'));
        break;
      }
      case 'revoke': {
        const change = await app.get(RevokeAdminRoleUseCase).execute({ email: command.email, operator: io.operator });
        io.out(describeChange(change, 'is no longer an admin: its next request to /admin is refused', 'was not an admin; nothing changed'));
        break;
      }
      case 'list': {
        const admins = await app.get(ListAdminsUseCase).execute();
        if (admins.length === 0) io.out('No account holds the admin role.');
        for (const admin of admins) io.out(`${admin.email}\t${admin.id}`);
        break;
      }
      case 'add-user': {
        const generated = command.passwordFromStdin ? undefined : randomBytes(18).toString('base64url');
        const password = generated ?? firstLine(await io.readStdin());
        const account = await app.get(AddUserUseCase).execute({ email: command.email, password });
        io.out(`Created ${account.email} (account ${account.id}, role ${account.role}).`);
        if (generated !== undefined) io.out(`Password, shown this once: ${generated}`);
        break;
      }
    }
    return 0;
  } catch (error) {
    // Refusals the operator can act on (no such account, email taken, bad address) are one line.
    if (!(error instanceof DomainError)) throw error;
    io.err(`${error.message} (${error.code})`);
    return 1;
  }
}

function describeChange(change: AdminRoleChange, changed: string, unchanged: string): string {
  const what = change.changed ? changed : unchanged;
  return `${change.account.email} (account ${change.account.id}) ${what}. Recorded in the audit log.`;
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0];
}
