import { AddUserUseCase } from '../../../src/application/identity/add-user.use-case';
import { GrantAdminRoleUseCase } from '../../../src/application/identity/grant-admin-role.use-case';
import { ListAdminsUseCase } from '../../../src/application/identity/list-admins.use-case';
import { RevokeAdminRoleUseCase } from '../../../src/application/identity/revoke-admin-role.use-case';
import {
  AccountNotFoundError,
  EmailAlreadyRegisteredError,
  InvalidEmailError,
  InvalidPasswordError,
  type Role,
} from '../../../src/domain/identity/user';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryUserRepository } from '../../fakes/in-memory-user.repository';
import { type Journal } from '../../fakes/outreach/recording-outreach-ports';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';
import { PlainTextPasswordHasher } from '../../fakes/plain-text-password-hasher';

/** Writes each role change into the journal the audit log writes to, so their order shows. */
class JournaledUsers extends InMemoryUserRepository {
  failNextUpdate = false;

  constructor(private readonly journal: Journal) {
    super();
  }

  override updateRole(id: string, role: Role): Promise<void> {
    if (this.failNextUpdate) return Promise.reject(new Error('connection lost'));
    this.journal.push(`users:${role}`);
    return super.updateRole(id, role);
  }
}

async function setup() {
  const journal: Journal = [];
  const users = new JournaledUsers(journal);
  const audit = new RecordingAuditLog(journal);
  const clock = new FixedClock();
  const addUser = new AddUserUseCase(users, new PlainTextPasswordHasher());
  const ada = await addUser.execute({ email: 'ada@example.com', password: 'long enough' });
  return {
    journal,
    users,
    audit,
    addUser,
    ada,
    grant: new GrantAdminRoleUseCase(users, audit, clock),
    revoke: new RevokeAdminRoleUseCase(users, audit, clock),
    list: new ListAdminsUseCase(users),
  };
}

describe(GrantAdminRoleUseCase.name, () => {
  it('makes the account an admin, after committing the pending audit row, then records the outcome', async () => {
    const { grant: sut, users, audit, journal, ada } = await setup();
    await expect(sut.execute({ email: ' ADA@example.com', operator: 'root' })).resolves.toEqual({
      account: { id: ada.id, email: 'ada@example.com', role: 'admin' },
      previousRole: 'user',
      changed: true,
    });
    expect(users.users.get(ada.id)?.role).toBe('admin');
    expect(journal).toEqual(['audit:pending', 'users:admin', 'audit:succeeded']);
    const entry = {
      source: 'admin',
      actorId: ada.id,
      tool: 'grant_admin',
      arguments: { email: 'ada@example.com', operator: 'root' },
      securityEvents: [],
    };
    expect(audit.rows).toEqual([
      { seq: 1, status: 'pending', entry },
      {
        seq: 2,
        status: 'succeeded',
        entry,
        pendingSeq: 1,
        outcome: { status: 'succeeded', result: { previousRole: 'user', role: 'admin' }, durationMs: 0 },
      },
    ]);
  });

  it('audits a grant to an admin too, changing nothing', async () => {
    const { grant: sut, journal } = await setup();
    await sut.execute({ email: 'ada@example.com', operator: 'root' });
    journal.length = 0;
    await expect(sut.execute({ email: 'ada@example.com', operator: 'root' })).resolves.toMatchObject({
      previousRole: 'admin',
      changed: false,
    });
    expect(journal).toEqual(['audit:pending', 'audit:succeeded']);
  });

  it('refuses an unknown or malformed email before writing anything', async () => {
    const { grant: sut, audit } = await setup();
    await expect(sut.execute({ email: 'nobody@example.com', operator: 'root' })).rejects.toThrow(
      new AccountNotFoundError('nobody@example.com'),
    );
    await expect(sut.execute({ email: 'nobody', operator: 'root' })).rejects.toThrow(InvalidEmailError);
    expect(audit.rows).toEqual([]);
  });

  it('records a failed change as failed and reports the failure', async () => {
    const { grant: sut, users, audit, ada } = await setup();
    users.failNextUpdate = true;
    await expect(sut.execute({ email: 'ada@example.com', operator: 'root' })).rejects.toThrow('connection lost');
    expect(audit.rows.map((row) => [row.entry.tool, row.outcome?.status ?? 'pending', row.outcome?.errorCode])).toEqual([
      ['grant_admin', 'pending', undefined],
      ['grant_admin', 'failed', 'INTERNAL'],
    ]);
    expect(users.users.get(ada.id)?.role).toBe('user');
  });
});

describe(RevokeAdminRoleUseCase.name, () => {
  it('takes the admin role away, audited as revoke_admin', async () => {
    const { grant, revoke: sut, users, audit, journal, ada } = await setup();
    await grant.execute({ email: 'ada@example.com', operator: 'root' });
    journal.length = 0;
    await expect(sut.execute({ email: 'ada@example.com', operator: 'ops' })).resolves.toMatchObject({
      account: { id: ada.id, role: 'user' },
      previousRole: 'admin',
      changed: true,
    });
    expect(users.users.get(ada.id)?.role).toBe('user');
    expect(journal).toEqual(['audit:pending', 'users:user', 'audit:succeeded']);
    expect(audit.rows.at(-1)).toEqual(
      expect.objectContaining({
        entry: expect.objectContaining({
          source: 'admin',
          actorId: ada.id,
          tool: 'revoke_admin',
          arguments: { email: 'ada@example.com', operator: 'ops' },
        }),
        outcome: expect.objectContaining({ status: 'succeeded', result: { previousRole: 'admin', role: 'user' } }),
      }),
    );
  });

  it('refuses an unknown email', async () => {
    const { revoke: sut } = await setup();
    await expect(sut.execute({ email: 'nobody@example.com', operator: 'root' })).rejects.toThrow(AccountNotFoundError);
  });
});

describe(ListAdminsUseCase.name, () => {
  it('lists the admins by email, without password hashes', async () => {
    const { list: sut, addUser, grant } = await setup();
    const zoe = await addUser.execute({ email: 'zoe@example.com', password: 'long enough' });
    const bob = await addUser.execute({ email: 'bob@example.com', password: 'long enough' });
    expect(await sut.execute()).toEqual([]);
    for (const email of ['zoe@example.com', 'bob@example.com']) await grant.execute({ email, operator: 'root' });
    expect(await sut.execute()).toEqual([
      { id: bob.id, email: 'bob@example.com', role: 'admin' },
      { id: zoe.id, email: 'zoe@example.com', role: 'admin' },
    ]);
  });
});

describe(AddUserUseCase.name, () => {
  it('creates a user-role account with a hashed password, refusing a taken email or a bad password', async () => {
    const { addUser: sut, users } = await setup();
    const account = await sut.execute({ email: 'Root@Example.com', password: 'long enough' });
    expect(account).toEqual({ id: expect.any(String), email: 'root@example.com', role: 'user' });
    expect(users.users.get(account.id)?.passwordHash).toBe('plain:long enough');
    await expect(sut.execute({ email: 'root@example.com', password: 'long enough' })).rejects.toThrow(EmailAlreadyRegisteredError);
    await expect(sut.execute({ email: 'new@example.com', password: '' })).rejects.toThrow(InvalidPasswordError);
  });
});
