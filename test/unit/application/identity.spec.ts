import { ChangePasswordUseCase } from '../../../src/application/identity/change-password.use-case';
import type { AccessTokenService, Principal } from '../../../src/application/identity/ports/access-token-service.port';
import type { SignUpPolicy } from '../../../src/application/identity/identity-settings';
import { LogInUseCase } from '../../../src/application/identity/log-in.use-case';
import { RegisterUserUseCase } from '../../../src/application/identity/register-user.use-case';
import {
  CredentialsChangedError,
  EmailAlreadyRegisteredError,
  InvalidCredentialsError,
  InvalidPasswordError,
  SignUpClosedError,
  WrongCurrentPasswordError,
} from '../../../src/domain/identity/user';
import { InMemoryUserRepository } from '../../fakes/in-memory-user.repository';
import { PlainTextPasswordHasher } from '../../fakes/plain-text-password-hasher';

class RecordingTokens implements AccessTokenService {
  issued: Principal[] = [];
  issue(principal: Principal) {
    this.issued.push(principal);
    return Promise.resolve({ accessToken: `token-for-${principal.userId}-v${principal.credentialsVersion}`, expiresIn: 3600 });
  }
  verify() {
    return Promise.resolve(null);
  }
}

function setup(signUp: SignUpPolicy = 'open') {
  const users = new InMemoryUserRepository();
  const hasher = new PlainTextPasswordHasher();
  const tokens = new RecordingTokens();
  return {
    users,
    hasher,
    tokens,
    register: new RegisterUserUseCase(users, hasher, { signUp }),
    logIn: () => new LogInUseCase(users, hasher, tokens),
    changePassword: new ChangePasswordUseCase(users, hasher, tokens),
  };
}

describe(RegisterUserUseCase.name, () => {
  it('stores the normalised email and a hash, never the password, and returns no hash', async () => {
    const { register: sut, users } = setup();
    const account = await sut.execute({ email: ' Ada@Example.com ', password: 'long enough' });
    expect(account).toEqual({ id: expect.any(String), email: 'ada@example.com', role: 'user' });
    expect(users.users.get(account.id)?.passwordHash).toBe('plain:long enough');
  });

  it('gives every account the user role, whatever its address', async () => {
    const { register: sut } = setup();
    for (const email of ['admin@example.com', 'root@localhost.localdomain', 'audit-team@example.com']) {
      await expect(sut.execute({ email, password: 'long enough' })).resolves.toMatchObject({ role: 'user' });
    }
  });

  it('refuses everyone while sign-up is closed, before looking at the input', async () => {
    const { register: sut, users } = setup('closed');
    await expect(sut.execute({ email: 'ada@example.com', password: 'long enough' })).rejects.toThrow(SignUpClosedError);
    await expect(sut.execute({ email: 'not an email', password: 'x' })).rejects.toThrow(SignUpClosedError);
    expect(users.users.size).toBe(0);
  });

  it('refuses short passwords and taken emails', async () => {
    const { register: sut } = setup();
    await expect(sut.execute({ email: 'a@example.com', password: 'short' })).rejects.toThrow(InvalidPasswordError);
    await sut.execute({ email: 'a@example.com', password: 'long enough' });
    await expect(sut.execute({ email: 'A@example.com', password: 'long enough' })).rejects.toThrow(EmailAlreadyRegisteredError);
  });
});

describe(LogInUseCase.name, () => {
  it('issues a token for the right password', async () => {
    const { register, logIn, tokens } = setup();
    const account = await register.execute({ email: 'a@example.com', password: 'long enough' });
    await expect(logIn().execute({ email: 'A@example.com', password: 'long enough' })).resolves.toEqual({
      accessToken: `token-for-${account.id}-v0`,
      expiresIn: 3600,
      userId: account.id,
    });
    expect(tokens.issued).toEqual([{ userId: account.id, email: 'a@example.com', role: 'user', credentialsVersion: 0 }]);
  });

  it('fails the same way for a wrong password, an unknown email and a malformed email', async () => {
    const { register, logIn, hasher } = setup();
    await register.execute({ email: 'a@example.com', password: 'long enough' });
    const sut = logIn();
    for (const attempt of [
      { email: 'a@example.com', password: 'wrong password' },
      { email: 'nobody@example.com', password: 'long enough' },
      { email: 'not an email', password: 'long enough' },
    ]) {
      await expect(sut.execute(attempt)).rejects.toThrow(new InvalidCredentialsError());
    }
    // Every failure paid for one hash verification, so timing does not tell them apart.
    expect(hasher.verifications).toBe(3);
  });

  it("puts the account's stored role in the token and never changes it", async () => {
    const { register, logIn, users, tokens } = setup();
    const account = await register.execute({ email: 'a@example.com', password: 'long enough' });
    await users.updateRole(account.id, 'admin');
    await logIn().execute({ email: 'a@example.com', password: 'long enough' });
    expect(tokens.issued).toEqual([{ userId: account.id, email: 'a@example.com', role: 'admin', credentialsVersion: 0 }]);
    expect(users.users.get(account.id)?.role).toBe('admin');
  });
});

describe(ChangePasswordUseCase.name, () => {
  async function signedUp() {
    const context = setup();
    const account = await context.register.execute({ email: 'a@example.com', password: 'long enough' });
    return { ...context, account };
  }

  it('stores the hash of the new password, moves the credentials version on and issues a token of the new version', async () => {
    const { changePassword: sut, users, tokens, account } = await signedUp();
    const result = await sut.execute({
      userId: account.id,
      credentialsVersion: 0,
      currentPassword: 'long enough',
      newPassword: 'longer still',
    });
    expect(result).toEqual({ accessToken: `token-for-${account.id}-v1`, expiresIn: 3600, userId: account.id });
    expect(users.users.get(account.id)).toMatchObject({ passwordHash: 'plain:longer still', credentialsVersion: 1 });
    expect(tokens.issued).toEqual([{ userId: account.id, email: 'a@example.com', role: 'user', credentialsVersion: 1 }]);
  });

  it('changes nothing for a wrong current password', async () => {
    const { changePassword: sut, users, tokens, account } = await signedUp();
    await expect(
      sut.execute({ userId: account.id, credentialsVersion: 0, currentPassword: 'wrong password', newPassword: 'longer still' }),
    ).rejects.toThrow(WrongCurrentPasswordError);
    expect(users.users.get(account.id)).toMatchObject({ passwordHash: 'plain:long enough', credentialsVersion: 0 });
    expect(tokens.issued).toEqual([]);
  });

  it('refuses a token of an older credentials version, even with the right password', async () => {
    const { changePassword: sut, users, account } = await signedUp();
    await sut.execute({ userId: account.id, credentialsVersion: 0, currentPassword: 'long enough', newPassword: 'longer still' });
    await expect(
      sut.execute({ userId: account.id, credentialsVersion: 0, currentPassword: 'longer still', newPassword: 'third of them' }),
    ).rejects.toThrow(CredentialsChangedError);
    expect(users.users.get(account.id)).toMatchObject({ passwordHash: 'plain:longer still', credentialsVersion: 1 });
  });

  it('lets one of two racing changes win: the other is refused and stores nothing', async () => {
    const { changePassword: sut, users, account } = await signedUp();
    const attempt = (newPassword: string) =>
      sut.execute({ userId: account.id, credentialsVersion: 0, currentPassword: 'long enough', newPassword });
    const outcomes = await Promise.allSettled([attempt('first new one'), attempt('second new one')]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(CredentialsChangedError);
    expect(users.users.get(account.id)?.credentialsVersion).toBe(1);
  });

  it('refuses an unacceptable new password, naming newPassword, before reading the account', async () => {
    const { changePassword: sut, users, hasher, account } = await signedUp();
    const refused = sut.execute({ userId: account.id, credentialsVersion: 0, currentPassword: 'long enough', newPassword: 'short' });
    await expect(refused).rejects.toThrow(InvalidPasswordError);
    await expect(refused).rejects.toMatchObject({ field: 'newPassword' });
    expect(hasher.verifications).toBe(0);
    expect(users.users.get(account.id)?.credentialsVersion).toBe(0);
  });

  it('refuses an account that no longer exists', async () => {
    const { changePassword: sut, users, account } = await signedUp();
    users.users.delete(account.id);
    await expect(
      sut.execute({ userId: account.id, credentialsVersion: 0, currentPassword: 'long enough', newPassword: 'longer still' }),
    ).rejects.toThrow(InvalidCredentialsError);
  });
});
