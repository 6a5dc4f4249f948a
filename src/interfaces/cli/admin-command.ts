import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { AdminRoleChange } from '../../application/identity/admin-role';
import { AuditProofsUseCase } from '../../application/audit/audit-proofs.use-case';
import { CheckAuditDigestUseCase } from '../../application/audit/check-audit-digest.use-case';
import { ExportAuditCheckpointsUseCase } from '../../application/audit/export-audit-checkpoints.use-case';
import { VerifyAuditChainUseCase } from '../../application/audit/verify-audit-chain.use-case';
import { AddUserUseCase } from '../../application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../../application/identity/grant-admin-role.use-case';
import { ListAdminsUseCase } from '../../application/identity/list-admins.use-case';
import { RevokeAdminRoleUseCase } from '../../application/identity/revoke-admin-role.use-case';
import { parseDigestLine, type SignedCheckpoint, toDigestLine } from '../../domain/audit/checkpoint';
import { DomainError } from '../../domain/shared/domain-error';
import { AUDIT_EXPORT_USAGE, type AuditExportCommand, parseAuditExport, runAuditExport } from './audit-export-command';

export type AdminCommand =
  | { readonly name: 'grant' | 'revoke'; readonly email: string }
  | { readonly name: 'list' }
  | { readonly name: 'add-user'; readonly email: string; readonly passwordFromStdin: boolean }
  | { readonly name: 'audit-checkpoints' }
  | { readonly name: 'audit-verify'; readonly full: boolean; readonly against: string | undefined }
  | { readonly name: 'audit-check-digest'; readonly file: string; readonly publicKey: string | undefined }
  | { readonly name: 'audit-proof'; readonly kind: 'inclusion'; readonly position: number; readonly treeSize: number | undefined }
  | { readonly name: 'audit-proof'; readonly kind: 'consistency'; readonly from: number; readonly to: number }
  | AuditExportCommand
  | { readonly name: 'help' };

/** Commands that need no database: they run without the application's modules. */
export type OfflineAdminCommand = Extract<AdminCommand, { name: 'audit-check-digest' }>;

export const ADMIN_USAGE = `Usage: npm run admin -- <command>   (node dist/admin.js <command>)

  grant <email>                        give the account the admin role
  revoke <email>                       take the admin role away
  list                                 the accounts that hold the admin role
  add-user <email> [--password-stdin]  create an account with the user role; prints a
                                       generated password once, or reads the password
                                       from the first line of standard input
  audit-checkpoints                    the audit chain's signed checkpoints as NDJSON digest
                                       lines, oldest first (keep the output outside the database)
  audit-verify [--full] [--against <digest file>]
                                       check the audit chain from its newest checkpoint, or
                                       all of it with --full; --against also checks that every
                                       checkpoint of an earlier export still holds
  audit-check-digest <digest file> [--public-key <base64 SPKI>]
                                       check a digest file's signatures, without a database
  audit-proof inclusion <position> [--tree-size <checkpoint's size>]
                                       RFC 9162 proof that the row linked at <position> is in
                                       the tree of a checkpoint (the newest by default), as JSON
                                       with the checkpoint's signed note
  audit-proof consistency <from> <to>  RFC 9162 proof that checkpoint <from>'s tree is a
                                       prefix of checkpoint <to>'s, as JSON
${AUDIT_EXPORT_USAGE}

Runs against the configured database (DATABASE_URL, or the embedded one in BRIDLE_DATA_DIR,
which only one process may open: stop the server first); audit-check-digest needs neither.
Grants and revokes are audited.
Exit status: 0 done (audit: verified), 1 refused, failed or not verified, 2 usage error.`;

/** A command line that names no command this knows; answered with the usage, exit status 2. */
export class AdminUsageError extends Error {}

export function parseAdminCommand(argv: readonly string[]): AdminCommand {
  const [name, ...rest] = argv;
  if (name === 'audit-verify' || name === 'audit-check-digest') return parseAuditCommand(name, rest);
  if (name === 'audit-proof') return parseProofCommand(rest);
  if (name === 'audit-export') return parseAuditExport(rest, (message) => new AdminUsageError(message));
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
    case 'audit-checkpoints':
      expect(0);
      return { name };
    default:
      throw new AdminUsageError(`Unknown command "${name}"`);
  }
}

/** `audit-verify` and `audit-check-digest`, whose options take values. */
function parseAuditCommand(name: 'audit-verify' | 'audit-check-digest', rest: readonly string[]): AdminCommand {
  const options = new Map<string, string | true>();
  const args: string[] = [];
  const valued = name === 'audit-verify' ? ['--against'] : ['--public-key'];
  const bare = name === 'audit-verify' ? ['--full'] : [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('-')) args.push(arg);
    else if (bare.includes(arg)) options.set(arg, true);
    else if (valued.includes(arg)) {
      const value = rest[++i];
      if (value === undefined || value.startsWith('-')) throw new AdminUsageError(`${arg} takes a value`);
      options.set(arg, value);
    } else throw new AdminUsageError(`${name} does not take ${arg}`);
  }
  const value = (option: string) => {
    const given = options.get(option);
    return typeof given === 'string' ? given : undefined;
  };
  if (name === 'audit-verify') {
    if (args.length !== 0) throw new AdminUsageError(`${name} takes no argument`);
    return { name, full: options.has('--full'), against: value('--against') };
  }
  if (args.length !== 1) throw new AdminUsageError(`${name} takes exactly one digest file`);
  return { name, file: args[0], publicKey: value('--public-key') };
}

/** `audit-proof inclusion <position> [--tree-size <n>]` and `audit-proof consistency <from> <to>`. */
function parseProofCommand(rest: readonly string[]): AdminCommand {
  const [kind, ...args] = rest;
  const size = (text: string | undefined, what: string): number => {
    const value = text !== undefined && /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value)) throw new AdminUsageError(`${what} must be a whole number from 1`);
    return value;
  };
  if (kind === 'inclusion') {
    const sizeAt = args.indexOf('--tree-size');
    const treeSize = sizeAt < 0 ? undefined : size(args[sizeAt + 1], '--tree-size');
    const positional = sizeAt < 0 ? args : [...args.slice(0, sizeAt), ...args.slice(sizeAt + 2)];
    const unknown = positional.find((arg) => arg.startsWith('-'));
    if (unknown !== undefined) throw new AdminUsageError(`audit-proof inclusion does not take ${unknown}`);
    if (positional.length !== 1) throw new AdminUsageError('audit-proof inclusion takes exactly one position');
    return { name: 'audit-proof', kind, position: size(positional[0], 'the position'), treeSize };
  }
  if (kind === 'consistency') {
    if (args.length !== 2) throw new AdminUsageError('audit-proof consistency takes two checkpoint sizes: <from> <to>');
    return { name: 'audit-proof', kind, from: size(args[0], '<from>'), to: size(args[1], '<to>') };
  }
  throw new AdminUsageError('audit-proof takes inclusion or consistency');
}

/** The command's surroundings: the entry point passes the process's own. */
export interface AdminCommandIo {
  /** Who runs the command, as the operating system names them; recorded on audit rows. */
  readonly operator: string;
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
  readFile(path: string): Promise<string>;
}

/** Runs one command through the application's use cases. @returns the exit status. */
export async function runAdminCommand(
  command: Exclude<AdminCommand, { name: 'help' } | OfflineAdminCommand>,
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
      case 'audit-checkpoints': {
        for await (const checkpoint of app.get(ExportAuditCheckpointsUseCase).all()) io.out(JSON.stringify(toDigestLine(checkpoint)));
        break;
      }
      case 'audit-verify':
        return await auditVerify(command, app, io);
      case 'audit-export':
        io.err(await runAuditExport(command, app));
        break;
      case 'audit-proof': {
        const proofs = app.get(AuditProofsUseCase);
        const answer =
          command.kind === 'inclusion'
            ? await proofs.inclusion(command.position, command.treeSize)
            : await proofs.consistency(command.from, command.to);
        io.out(JSON.stringify(answer));
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

async function auditVerify(
  command: Extract<AdminCommand, { name: 'audit-verify' }>,
  app: Pick<INestApplicationContext, 'get'>,
  io: AdminCommandIo,
): Promise<number> {
  // The file first: a bad file is the operator's to fix before anything is read.
  const digest = command.against === undefined ? undefined : await readDigest(command.against, io);
  if (digest === null) return 2;
  const verify = app.get(VerifyAuditChainUseCase);
  const verification = await verify.verify(command.full);
  io.out(JSON.stringify(verification));
  let verified = verification.verified;
  if (digest !== undefined) {
    const check = await verify.checkAgainstChain(digest);
    io.out(JSON.stringify({ against: command.against, checkpoints: check.checked, firstBad: check.firstBad }));
    verified &&= check.firstBad === null;
  }
  io.err(verified ? 'Verified.' : 'NOT verified: see firstBadSeq, firstBadCheckpoint and firstBad above.');
  return verified ? 0 : 1;
}

/**
 * `audit-check-digest`, the auditor's tool: needs only the file, so the entry point runs it
 * without the database (AuditDigestCheckModule).
 */
export async function runOfflineAdminCommand(
  command: OfflineAdminCommand,
  app: Pick<INestApplicationContext, 'get'>,
  io: AdminCommandIo,
): Promise<number> {
  const digest = await readDigest(command.file, io);
  if (digest === null) return 2;
  const check = app.get(CheckAuditDigestUseCase).execute(digest, command.publicKey);
  io.out(JSON.stringify({ file: command.file, ...check }));
  if (check.firstBad !== null) {
    io.err(`NOT verified: the checkpoint at position ${check.firstBad.position} fails (${check.firstBad.problem}).`);
    return 1;
  }
  io.err(
    `${check.checked} checkpoints signed by key ${check.keyIds.join(', ') || '(none)'}` +
      (command.publicKey === undefined ? ': compare the key id with the one the operator published.' : ', the key given.'),
  );
  return 0;
}

/** The digest file's checkpoints; null, with the line named on stderr, when a line is not one. */
async function readDigest(path: string, io: AdminCommandIo): Promise<SignedCheckpoint[] | null> {
  const lines = (await io.readFile(path)).split('\n');
  const checkpoints: SignedCheckpoint[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const checkpoint = parseDigestLine(line);
    if (checkpoint === null) {
      io.err(`${path}:${index + 1} is not a digest line (position, seq, headHash, time, keyId, signature, publicKey).`);
      return null;
    }
    checkpoints.push(checkpoint);
  }
  return checkpoints;
}

function describeChange(change: AdminRoleChange, changed: string, unchanged: string): string {
  const what = change.changed ? changed : unchanged;
  return `${change.account.email} (account ${change.account.id}) ${what}. Recorded in the audit log.`;
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0];
}
