import type { AccessTokenService, Principal } from '../../../src/application/identity/ports/access-token-service.port';
import { LogInUseCase } from '../../../src/application/identity/log-in.use-case';
import { RegisterUserUseCase } from '../../../src/application/identity/register-user.use-case';
import {
  EmailAlreadyRegisteredError,
  InvalidCredentialsError,
  InvalidPasswordError,
} from '../../../src/domain/identity/user';
import { InMemoryUserRepository } from '../../fakes/in-memory-user.repository';
import { PlainTextPasswordHasher } from '../../fakes/plain-text-password-hasher';

class RecordingTokens implements AccessTokenService {
  issued: Principal[] = [];
  issue(principal: Principal) {
    this.issued.push(principal);
    return Promise.resolve({ accessToken: `token-for-${principal.userId}`, expiresIn: 3600 });
  }
  verify() {
    return Promise.resolve(null);
  }
}

function setup(adminEmails: string[] = []) {
  const users = new InMemoryUserRepository();
  const hasher = new PlainTextPasswordHasher();
  const tokens = new RecordingTokens();
  const settings = { adminEmails: new Set(adminEmails) };
  return {
    users,
    hasher,
    tokens,
    register: new RegisterUserUseCase(users, hasher, settings),
    logIn: (admins = settings) => new LogInUseCase(users, hasher, tokens, admins),
  };
}

describe(RegisterUserUseCase.name, () => {
  it('stores the normalised email and a hash, never the password, and returns no hash', async () => {
    const { register: sut, users } = setup();
    const account = await sut.execute({ email: ' Ada@Example.com ', password: 'long enough' });
    expect(account).toEqual({ id: expect.any(String), email: 'ada@example.com', role: 'user' });
    expect(users.users.get(account.id)?.passwordHash).toBe('plain:long enough');
  });

  it('gives the admin role to listed emails', async () => {
    const { register: sut } = setup(['boss@example.com']);
    await expect(sut.execute({ email: 'BOSS@example.com', password: 'long enough' })).resolves.toMatchObject({
      role: 'admin',
    });
  });

  it('refuses short passwords and taken emails', async () => {
    const { register: sut } = setup();
    await expect(sut.execute({ email: 'a@example.com', password: 'short' })).rejects.toThrow(InvalidPasswordError);
    await sut.execute({ email: 'a@example.com', password: 'long enough' });
    await expect(sut.execute({ email: 'A@example.com', password: 'long enough' })).rejects.toThrow(
      EmailAlreadyRegisteredError,
    );
  });
});

describe(LogInUseCase.name, () => {
  it('issues a token for the right password', async () => {
    const { register, logIn, tokens } = setup();
    const account = await register.execute({ email: 'a@example.com', password: 'long enough' });
    await expect(logIn().execute({ email: 'A@example.com', password: 'long enough' })).resolves.toEqual({
      accessToken: `token-for-${account.id}`,
      expiresIn: 3600,
      userId: account.id,
    });
    expect(tokens.issued).toEqual([{ userId: account.id, email: 'a@example.com', role: 'user' }]);
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

  it('follows the current admin list, promoting and demoting at sign-in', async () => {
    const { register, logIn, users } = setup(['a@example.com']);
    const account = await register.execute({ email: 'a@example.com', password: 'long enough' });
    await logIn({ adminEmails: new Set() }).execute({ email: 'a@example.com', password: 'long enough' });
    expect(users.users.get(account.id)?.role).toBe('user');
  });
});
